// template.json: the same resources as deploy.sh, as an ARM deployment
// template. Secrets are parameters, never values: the Linux admin credential
// is an SSH public key parameter (password authentication disabled), the
// Windows admin password a securestring parameter without a default. The
// guest script (cloud-init.yaml or setup.ps1) travels as custom data.
#include <nlohmann/json.hpp>

#include "core/strings.h"
#include "deploy/internal/generate.h"

namespace gpuplan::deploy {

using namespace internal;
using ordered_json = nlohmann::ordered_json;

namespace {

// API versions: 2023-09-01 carries every property used here (encryptionAtHost,
// priority/evictionPolicy/billingProfile, licenseType, identity, deleteOption).
constexpr const char* kNetworkApi = "2023-09-01";
constexpr const char* kComputeApi = "2023-09-01";

ordered_json image_reference(const std::string& urn) {
  const std::vector<std::string> p = strings::split(urn, ':');
  return ordered_json{
      {"publisher", p.at(0)}, {"offer", p.at(1)}, {"sku", p.at(2)}, {"version", p.at(3)}};
}

ordered_json storage_profile(const DeploySpec& spec) {
  return ordered_json{
      {"imageReference", image_reference(spec.image_urn)},
      {"osDisk",
       {{"createOption", "FromImage"},
        {"diskSizeGB", kOsDiskGib},
        {"managedDisk",
         spec.security_type == SecurityType::kConfidentialVm
             ? ordered_json{{"storageAccountType", "Premium_LRS"},
                            {"securityProfile", {{"securityEncryptionType", "VMGuestStateOnly"}}}}
             : ordered_json{{"storageAccountType", "Premium_LRS"}}},
        {"deleteOption", "Delete"}}},
      {"dataDisks",
       ordered_json::array({ordered_json{{"lun", 0},
                                         {"createOption", "Empty"},
                                         {"diskSizeGB", "[parameters('dataDiskGiB')]"},
                                         {"managedDisk", {{"storageAccountType", "Premium_LRS"}}},
                                         {"deleteOption", "Delete"}}})}};
}

ordered_json os_profile(const DeploySpec& spec) {
  ordered_json p;
  if (spec.scale_set) {
    p["computerNamePrefix"] = "[parameters('computerName')]";
  } else {
    p["computerName"] = "[parameters('computerName')]";
  }
  p["adminUsername"] = "[parameters('adminUsername')]";
  if (is_windows(spec)) {
    p["adminPassword"] = "[parameters('adminPassword')]";
    p["customData"] = "[base64(variables('customData'))]";
    p["windowsConfiguration"] = {{"provisionVMAgent", true}, {"enableAutomaticUpdates", true}};
  } else {
    p["customData"] = "[base64(variables('customData'))]";
    p["linuxConfiguration"] = {
        {"disablePasswordAuthentication", true},
        {"ssh",
         {{"publicKeys",
           ordered_json::array({ordered_json{
               {"path", "[format('/home/{0}/.ssh/authorized_keys', parameters('adminUsername'))]"},
               {"keyData", "[parameters('adminPublicKey')]"}}})}}}};
  }
  return p;
}

// Spot, Hybrid Benefit, encryption at host, the security type and boot
// diagnostics, shared by VM and scale set. Trusted Launch is a parameter
// (Standard where `az vm list-skus` says TrustedLaunchDisabled); its UEFI
// settings exist only when it is on.
void add_pricing_and_security(const DeploySpec& spec, ordered_json& props) {
  const std::string uefi = std::string("createObject('secureBootEnabled', ") +
                           (spec.secure_boot ? "true()" : "false()") + ", 'vTpmEnabled', " +
                           (spec.vtpm ? "true()" : "false()") + ")";
  if (spec.security_type == SecurityType::kConfidentialVm) {
    props["securityProfile"] = {
        {"securityType", "ConfidentialVM"},
        {"uefiSettings", {{"secureBootEnabled", spec.secure_boot}, {"vTpmEnabled", spec.vtpm}}}};
  } else {
    // encryptionAtHost only where the size supports it (absent, not false).
    const std::string eah = spec.encryption_at_host ? "'encryptionAtHost', true()" : "";
    props["securityProfile"] = "[if(equals(parameters('securityType'), 'Standard'), createObject(" +
                               eah + "), createObject(" + eah + (eah.empty() ? "" : ", ") +
                               "'securityType', parameters('securityType'), 'uefiSettings', " +
                               uefi + "))]";
  }
  props["diagnosticsProfile"] = {{"bootDiagnostics", {{"enabled", true}}}};
  if (spec.option.pricing == catalog::Pricing::kSpot) {
    props["priority"] = "Spot";
    props["evictionPolicy"] = "Deallocate";
    props["billingProfile"] = {{"maxPrice", -1}};
  }
  if (spec.option.hybrid_benefit) props["licenseType"] = "Windows_Server";
}

ordered_json driver_extension_properties(const DeploySpec& spec) {
  const bool win = is_windows(spec);
  ordered_json p{
      {"publisher", kExtensionPublisher},
      {"type", win ? kWindowsDriverExtension : kLinuxDriverExtension},
      {"typeHandlerVersion", win ? kWindowsDriverExtensionVersion : kLinuxDriverExtensionVersion},
      {"autoUpgradeMinorVersion", true}};
  if (!win) p["settings"] = {{"updateOS", false}, {"installCUDA", false}};
  // The GRID version the stack was chosen for, where the extension's
  // default (the newest branch) dropped the GPU: NVv3's M60 on Windows.
  if (spec.stack.pinned_driver)
    p["settings"]["driverVersion"] = spec.stack.pinned_driver->to_string();
  return p;
}

ordered_json setup_extension_properties() {
  return ordered_json{{"publisher", "Microsoft.Compute"},
                      {"type", "CustomScriptExtension"},
                      {"typeHandlerVersion", kCustomScriptVersion},
                      {"autoUpgradeMinorVersion", true},
                      {"settings", {{"commandToExecute", windows_setup_command()}}}};
}

std::string rid(const std::string& type, const std::string& name_expr) {
  return "[resourceId('" + type + "', " + name_expr + ")]";
}

// Autostop's Azure side: the machine's identity may deallocate the machine
// (Virtual Machine Contributor scoped to it alone), and for a single VM
// Azure's daily auto-shutdown as a backstop (Microsoft.DevTestLab/schedules,
// which deallocates; scale sets have no such schedule).
void add_autostop_resources(const DeploySpec& spec, ordered_json& resources) {
  const std::string type = spec.scale_set ? "Microsoft.Compute/virtualMachineScaleSets"
                                          : "Microsoft.Compute/virtualMachines";
  const std::string target = rid(type, "parameters('vmName')");
  const std::string target_expr = target.substr(1, target.size() - 2);  // without [ ]
  resources.push_back(
      {{"type", "Microsoft.Authorization/roleAssignments"},
       {"apiVersion", "2022-04-01"},
       {"name", "[guid(" + target_expr + ", 'gpuplan-autostop')]"},
       {"scope", "[" + target_expr + "]"},
       {"dependsOn", ordered_json::array({target})},
       {"properties",
        {{"roleDefinitionId", std::string("[subscriptionResourceId('Microsoft.Authorization/"
                                          "roleDefinitions', '") +
                                  kVmContributorRoleId + "')]"},
         {"principalId",
          "[reference(" + target_expr + ", '" + kComputeApi + "', 'full').identity.principalId]"},
         {"principalType", "ServicePrincipal"}}}});
  if (spec.scale_set) return;
  resources.push_back({{"type", "Microsoft.DevTestLab/schedules"},
                       {"apiVersion", "2018-09-15"},
                       {"name", "[format('shutdown-computevm-{0}', parameters('vmName'))]"},
                       {"location", "[parameters('location')]"},
                       {"dependsOn", ordered_json::array({target})},
                       {"properties",
                        {{"status", "[parameters('autoShutdownStatus')]"},
                         {"taskType", "ComputeVmShutdownTask"},
                         {"dailyRecurrence", {{"time", "[parameters('autoShutdownTime')]"}}},
                         {"timeZoneId", "UTC"},
                         {"targetResourceId", target},
                         {"notificationSettings", {{"status", "Disabled"}}}}}});
}

// The resource ids the template's resources refer to each other by.
struct ArmIds {
  std::string nsg = rid("Microsoft.Network/networkSecurityGroups", "variables('nsgName')");
  std::string vnet = rid("Microsoft.Network/virtualNetworks", "variables('vnetName')");
  std::string subnet =
      "[resourceId('Microsoft.Network/virtualNetworks/subnets', variables('vnetName'), "
      "variables('subnetName'))]";
  std::string ppg = rid("Microsoft.Compute/proximityPlacementGroups", "variables('ppgName')");
};

// Parameters: everything a user may change, secrets without defaults.
ordered_json arm_parameters(const DeploySpec& spec) {
  const bool win = is_windows(spec);
  ordered_json params;
  params["location"] = {{"type", "string"}, {"defaultValue", spec.option.region}};
  params["vmName"] = {{"type", "string"}, {"defaultValue", spec.vm_name}};
  params["computerName"] = {{"type", "string"}, {"defaultValue", spec.computer_name}};
  params["vmSize"] = {{"type", "string"}, {"defaultValue", spec.size.name}};
  params["adminUsername"] = {{"type", "string"}, {"defaultValue", kAdminUser}};
  if (win) {
    params["adminPassword"] = {{"type", "securestring"},
                               {"metadata",
                                {{"description",
                                  "Windows admin password; supply it at deployment time, "
                                  "never store it in a file"}}}};
  } else {
    params["adminPublicKey"] = {{"type", "string"},
                                {"metadata",
                                 {{"description",
                                   "OpenSSH public key for the admin user (contents of "
                                   "~/.ssh/id_rsa.pub); password login is disabled"}}}};
  }
  if (spec.security_type != SecurityType::kConfidentialVm) {
    params["securityType"] = {{"type", "string"},
                              {"defaultValue", "TrustedLaunch"},
                              {"allowedValues", ordered_json::array({"TrustedLaunch", "Standard"})},
                              {"metadata",
                               {{"description",
                                 "Standard only where `az vm list-skus` lists the size with "
                                 "TrustedLaunchDisabled; " +
                                     spec.security_note}}}};
  }
  params["sshSourceCidr"] = {{"type", "string"},
                             {"defaultValue", spec.ssh_cidr},
                             {"metadata",
                              {{"description", std::string("the only source allowed to reach ") +
                                                   (win ? "RDP (3389)" : "SSH (22)")}}}};
  params["dataDiskGiB"] = {{"type", "int"},
                           {"defaultValue", static_cast<int>(spec.data_disk_gib)},
                           {"minValue", 4},
                           {"maxValue", 32767}};
  if (spec.scale_set) {
    params["instanceCount"] = {
        {"type", "int"}, {"defaultValue", spec.option.count}, {"minValue", 1}};
  }
  if (spec.autostop_minutes > 0 && !spec.scale_set) {
    params["autoShutdownTime"] = {
        {"type", "string"},
        {"defaultValue", spec.shutdown_time},
        {"metadata", {{"description", "daily auto-shutdown (deallocate) backstop, HHMM UTC"}}}};
    params["autoShutdownStatus"] = {
        {"type", "string"},
        {"defaultValue", spec.shutdown_backstop ? "Enabled" : "Disabled"},
        {"allowedValues", ordered_json::array({"Enabled", "Disabled"})},
        {"metadata",
         {{"description", spec.shutdown_backstop
                              ? "enabled: the job is expected to end within a day"
                              : "disabled: the job runs longer than a day and a daily shutdown "
                                "would cut it"}}}};
  }
  const BudgetWindow window = budget_window(spec);
  params["budgetName"] = {{"type", "string"}, {"defaultValue", budget_name(spec)}};
  params["budgetStartDate"] = {
      {"type", "string"},
      {"defaultValue", window.start + "T00:00:00Z"},
      {"metadata",
       {{"description",
         "the first of a month, not a past one (Azure refuses those); the budget "
         "ends " +
             window.end + "T00:00:00Z"}}}};
  params["budgetContactEmails"] = {
      {"type", "array"},
      {"defaultValue", ordered_json::array()},
      {"metadata",
       {{"description",
         "addresses for the budget's alerts, besides the resource group's owners and "
         "contributors"}}}};
  return params;
}

// Variables: the resource names and the guest's first-boot script.
ordered_json arm_variables(const DeploySpec& spec) {
  const bool win = is_windows(spec);
  ordered_json vars;
  vars["nsgName"] = nsg_name(spec);
  vars["vnetName"] = vnet_name(spec);
  vars["subnetName"] = "default";
  if (!spec.scale_set) {
    vars["publicIpName"] = spec.prefix + "-ip";
    vars["nicName"] = spec.prefix + "-nic";
  }
  if (spec.proximity_group) vars["ppgName"] = ppg_name(spec);
  vars["customData"] = win ? render_setup_ps1(spec) : render_cloud_init(spec);
  return vars;
}

// The network every layout shares: the security group admitting only the
// admin port from the allowed CIDR, the VNet and its subnet, and the
// proximity placement group when there is one.
void add_network_resources(const DeploySpec& spec, const ArmIds& ids, ordered_json& resources) {
  const bool win = is_windows(spec);
  resources.push_back(
      {{"type", "Microsoft.Network/networkSecurityGroups"},
       {"apiVersion", kNetworkApi},
       {"name", "[variables('nsgName')]"},
       {"location", "[parameters('location')]"},
       {"properties",
        {{"securityRules",
          ordered_json::array(
              {ordered_json{{"name", win ? "allow-rdp-from-cidr" : "allow-ssh-from-cidr"},
                            {"properties",
                             {{"priority", 1000},
                              {"direction", "Inbound"},
                              {"access", "Allow"},
                              {"protocol", "Tcp"},
                              {"sourceAddressPrefix", "[parameters('sshSourceCidr')]"},
                              {"sourcePortRange", "*"},
                              {"destinationAddressPrefix", "*"},
                              {"destinationPortRange", std::to_string(admin_port(spec))}}}}})}}}});
  resources.push_back(
      {{"type", "Microsoft.Network/virtualNetworks"},
       {"apiVersion", kNetworkApi},
       {"name", "[variables('vnetName')]"},
       {"location", "[parameters('location')]"},
       {"dependsOn", ordered_json::array({ids.nsg})},
       {"properties",
        {{"addressSpace", {{"addressPrefixes", ordered_json::array({kVnetPrefix})}}},
         {"subnets",
          ordered_json::array({ordered_json{{"name", "[variables('subnetName')]"},
                                            {"properties",
                                             {{"addressPrefix", kSubnetPrefix},
                                              {"networkSecurityGroup", {{"id", ids.nsg}}}}}}})}}}});
  if (spec.proximity_group) {
    resources.push_back({{"type", "Microsoft.Compute/proximityPlacementGroups"},
                         {"apiVersion", kComputeApi},
                         {"name", "[variables('ppgName')]"},
                         {"location", "[parameters('location')]"},
                         {"properties", {{"proximityPlacementGroupType", "Standard"}}}});
  }
}

// One VM: its public IP, NIC, the VM itself and its extensions (the
// driver extension where Azure installs the driver; on Windows the setup
// script after it).
void add_single_vm_resources(const DeploySpec& spec, const ArmIds& ids, ordered_json& resources) {
  const bool win = is_windows(spec);
  const std::string pip_id =
      rid("Microsoft.Network/publicIPAddresses", "variables('publicIpName')");
  const std::string nic_id = rid("Microsoft.Network/networkInterfaces", "variables('nicName')");
  const std::string vm_id = rid("Microsoft.Compute/virtualMachines", "parameters('vmName')");
  resources.push_back({{"type", "Microsoft.Network/publicIPAddresses"},
                       {"apiVersion", kNetworkApi},
                       {"name", "[variables('publicIpName')]"},
                       {"location", "[parameters('location')]"},
                       {"sku", {{"name", "Standard"}}},
                       {"properties", {{"publicIPAllocationMethod", "Static"}}}});
  resources.push_back({{"type", "Microsoft.Network/networkInterfaces"},
                       {"apiVersion", kNetworkApi},
                       {"name", "[variables('nicName')]"},
                       {"location", "[parameters('location')]"},
                       {"dependsOn", ordered_json::array({ids.vnet, pip_id})},
                       {"properties",
                        {{"ipConfigurations", ordered_json::array({ordered_json{
                                                  {"name", "ipconfig1"},
                                                  {"properties",
                                                   {{"privateIPAllocationMethod", "Dynamic"},
                                                    {"subnet", {{"id", ids.subnet}}},
                                                    {"publicIPAddress", {{"id", pip_id}}}}}}})}}}});
  ordered_json props;
  props["hardwareProfile"] = {{"vmSize", "[parameters('vmSize')]"}};
  props["storageProfile"] = storage_profile(spec);
  props["osProfile"] = os_profile(spec);
  props["networkProfile"] = {
      {"networkInterfaces", ordered_json::array({ordered_json{{"id", nic_id}}})}};
  add_pricing_and_security(spec, props);
  if (spec.proximity_group) props["proximityPlacementGroup"] = {{"id", ids.ppg}};
  ordered_json vm{{"type", "Microsoft.Compute/virtualMachines"},
                  {"apiVersion", kComputeApi},
                  {"name", "[parameters('vmName')]"},
                  {"location", "[parameters('location')]"},
                  {"identity", {{"type", "SystemAssigned"}}},
                  {"dependsOn", ordered_json::array({nic_id})},
                  {"properties", props}};
  resources.push_back(vm);
  std::string last_extension;
  if (uses_driver_extension(spec)) {
    const std::string ext = win ? kWindowsDriverExtension : kLinuxDriverExtension;
    resources.push_back({{"type", "Microsoft.Compute/virtualMachines/extensions"},
                         {"apiVersion", kComputeApi},
                         {"name", "[format('{0}/{1}', parameters('vmName'), '" + ext + "')]"},
                         {"location", "[parameters('location')]"},
                         {"dependsOn", ordered_json::array({vm_id})},
                         {"properties", driver_extension_properties(spec)}});
    last_extension =
        "[resourceId('Microsoft.Compute/virtualMachines/extensions', "
        "parameters('vmName'), '" +
        ext + "')]";
  }
  if (win) {
    resources.push_back(
        {{"type", "Microsoft.Compute/virtualMachines/extensions"},
         {"apiVersion", kComputeApi},
         {"name", "[format('{0}/{1}', parameters('vmName'), 'CustomScriptExtension')]"},
         {"location", "[parameters('location')]"},
         {"dependsOn", ordered_json::array({last_extension.empty() ? vm_id : last_extension})},
         {"properties", setup_extension_properties()}});
  }
}

// A scale set, its extensions in the VM profile; for serving, the
// autoscale setting, which must follow the scale set (`deferred`).
void add_scale_set_resources(const DeploySpec& spec, const ArmIds& ids, ordered_json& resources,
                             ordered_json& deferred) {
  const bool win = is_windows(spec);
  ordered_json vm_profile;
  vm_profile["storageProfile"] = storage_profile(spec);
  vm_profile["osProfile"] = os_profile(spec);
  vm_profile["networkProfile"] = {
      {"networkInterfaceConfigurations",
       ordered_json::array(
           {ordered_json{{"name", "nic"},
                         {"properties",
                          {{"primary", true},
                           {"ipConfigurations",
                            ordered_json::array({ordered_json{
                                {"name", "ipconfig1"},
                                {"properties",
                                 {{"subnet", {{"id", ids.subnet}}},
                                  // Standard: an instance IP without a SKU
                                  // is Basic, which Azure retired on 30
                                  // September 2025 ("Networking for Azure
                                  // Virtual Machine Scale Sets": the SKU of
                                  // instance IPs is set directly).
                                  {"publicIPAddressConfiguration",
                                   {{"name", "pip"},
                                    {"sku", {{"name", "Standard"}, {"tier", "Regional"}}},
                                    {"properties", {{"idleTimeoutInMinutes", 15}}}}}}}}})}}}}})}};
  add_pricing_and_security(spec, vm_profile);
  ordered_json extensions = ordered_json::array();
  if (uses_driver_extension(spec)) {
    extensions.push_back({{"name", win ? kWindowsDriverExtension : kLinuxDriverExtension},
                          {"properties", driver_extension_properties(spec)}});
  }
  if (win) {
    ordered_json setup = setup_extension_properties();
    if (uses_driver_extension(spec)) {
      setup["provisionAfterExtensions"] = ordered_json::array({kWindowsDriverExtension});
    }
    extensions.push_back({{"name", "CustomScriptExtension"}, {"properties", setup}});
  }
  if (!extensions.empty()) vm_profile["extensionProfile"] = {{"extensions", extensions}};
  ordered_json props{{"orchestrationMode", "Uniform"},
                     {"singlePlacementGroup", true},
                     {"platformFaultDomainCount", 1},
                     {"overprovision", false},
                     {"upgradePolicy", {{"mode", "Manual"}}}};
  if (spec.proximity_group) props["proximityPlacementGroup"] = {{"id", ids.ppg}};
  props["virtualMachineProfile"] = vm_profile;
  ordered_json depends = ordered_json::array({ids.vnet});
  if (spec.proximity_group) depends.push_back(ids.ppg);
  if (spec.serving) {
    ordered_json scale = autoscale_resource(spec, true);
    scale["dependsOn"] = ordered_json::array(
        {rid("Microsoft.Compute/virtualMachineScaleSets", "parameters('vmName')")});
    deferred.push_back(scale);
  }
  resources.push_back({{"type", "Microsoft.Compute/virtualMachineScaleSets"},
                       {"apiVersion", kComputeApi},
                       {"name", "[parameters('vmName')]"},
                       {"location", "[parameters('location')]"},
                       {"sku",
                        {{"name", "[parameters('vmSize')]"},
                         {"tier", "Standard"},
                         {"capacity", "[parameters('instanceCount')]"}}},
                       {"identity", {{"type", "SystemAssigned"}}},
                       {"dependsOn", depends},
                       {"properties", props}});
}

// The budget deploy.sh PUTs from budget.json, as a resource of the
// resource group the template is deployed to (Microsoft.Consumption/budgets
// is an extension resource whose valid deployment scopes include resource
// groups: learn.microsoft.com, azure/templates/microsoft.consumption/
// budgets). Its alerts go to the resource group's owners and contributors
// and to the addresses in budgetContactEmails; its start is a parameter,
// since Azure refuses a budget that starts in a month already past.
ordered_json budget_resource(const DeploySpec& spec) {
  ordered_json props = budget_properties(spec);
  props["timePeriod"]["startDate"] = "[parameters('budgetStartDate')]";
  for (auto& [key, n] : props["notifications"].items())
    n["contactEmails"] = "[parameters('budgetContactEmails')]";
  return {{"type", "Microsoft.Consumption/budgets"},
          {"apiVersion", kBudgetApiVersion},
          {"name", "[parameters('budgetName')]"},
          {"properties", props}};
}

}  // namespace

std::string render_arm_template(const DeploySpec& spec) {
  ordered_json t;
  t["$schema"] = "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#";
  t["contentVersion"] = "1.0.0.0";
  t["metadata"] = {{"generator", "gpuplan"},
                   {"plan", spec.plan_file},
                   {"option", spec.option_index},
                   {"description", describe_option(spec)},
                   {"stack", describe_stack(spec)}};

  t["parameters"] = arm_parameters(spec);
  t["variables"] = arm_variables(spec);

  const ArmIds ids;
  ordered_json resources = ordered_json::array();
  ordered_json deferred = ordered_json::array();  // resources that follow the machines
  add_network_resources(spec, ids, resources);

  if (!spec.scale_set) {
    add_single_vm_resources(spec, ids, resources);
  } else {
    add_scale_set_resources(spec, ids, resources, deferred);
  }
  if (spec.autostop_minutes > 0) add_autostop_resources(spec, resources);
  for (const ordered_json& r : deferred) resources.push_back(r);
  resources.push_back(budget_resource(spec));
  t["resources"] = resources;
  t["outputs"] = ordered_json::object();
  if (!spec.scale_set) {
    t["outputs"]["publicIp"] = {{"type", "string"},
                                {"value",
                                 "[reference(resourceId('Microsoft.Network/publicIPAddresses', "
                                 "variables('publicIpName'))).ipAddress]"}};
  }
  t["outputs"]["principalId"] = {
      {"type", "string"},
      {"value", std::string("[reference(resourceId('") +
                    (spec.scale_set ? "Microsoft.Compute/virtualMachineScaleSets"
                                    : "Microsoft.Compute/virtualMachines") +
                    "', parameters('vmName')), '" + kComputeApi +
                    "', 'full').identity.principalId]"}};
  return t.dump(2) + "\n";
}

}  // namespace gpuplan::deploy
