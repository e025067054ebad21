// autoscale.json for serving plans: the simulator's azure-autoscale policy
// exported as an Azure Monitor autoscale setting, so the policy that was
// simulated is the policy that gets deployed. The rules come from
// simulate::default_autoscale_settings(); capacity: minimum 1 VM (scale in at
// quiet hours), default the plan's count (sized for the planned request rate
// and SLO), maximum twice that (headroom for bursts) — said to the user.
#include "deploy/internal/generate.h"
#include "simulate/autoscale_export.h"
#include "simulate/serving.h"

namespace gpuplan::deploy {

nlohmann::ordered_json autoscale_resource(const DeploySpec& spec, bool in_template) {
  simulate::AutoscaleTarget t;
  t.name = spec.prefix + "-autoscale";
  // Outside template.json, deploy.sh wraps the resource in a template whose
  // `location` parameter is its $LOCATION: a LOCATION override once put the
  // scale set in westus3 and its autoscale setting in the planned eastus.
  t.location = "[parameters('location')]";
  t.target_resource_uri =
      in_template
          ? "[resourceId('Microsoft.Compute/virtualMachineScaleSets', parameters('vmName'))]"
          : "[resourceId('Microsoft.Compute/virtualMachineScaleSets', '" + spec.vm_name + "')]";
  t.minimum = 1;
  t.default_capacity = spec.option.count;
  t.maximum = 2 * spec.option.count;
  return simulate::azure_autoscale_settings(simulate::default_autoscale_settings(), t);
}

std::string render_autoscale(const DeploySpec& spec) {
  return autoscale_resource(spec, false).dump(2) + "\n";
}

}  // namespace gpuplan::deploy
