// Autostop: the VM deallocates itself after MINUTES without work.
//
// Why deallocate and not stop: a VM stopped from inside the guest (shutdown)
// keeps its compute allocated and is billed for it; only a deallocated VM
// stops the compute meter (learn.microsoft.com "States and billing status of
// Azure Virtual Machines": Stopped = billed, Stopped (deallocated) = not).
// So the guest asks Azure to deallocate it: a token for the VM's
// system-assigned managed identity from the Instance Metadata Service, then
// the Compute REST API's deallocate action on this VM (or this scale-set
// instance). deploy.sh grants that identity Virtual Machine Contributor on
// the VM (or scale set) alone.
//
// What counts as work, sampled once a minute by a systemd timer (a scheduled
// task on Windows):
//   - any GPU's utilization.gpu at or above THRESHOLD percent. nvidia-smi's
//     utilization.gpu is "percent of time over the past sample period during
//     which one or more kernels was executing" (nvidia-smi(1)): an idle GPU
//     reads 0 and any running training or render holds it far above the
//     default 5;
//   - an interactive session (`who`; `quser` on Windows);
//   - the user's busy file (BUSY_FILE exists): `touch` it to keep the VM up
//     through CPU-only work, remove it to let autostop run;
//   - first-boot setup still running (cloud-init not done).
// Idle time counts from the last busy sample, never from before the current
// boot. A GPU that cannot be read counts as idle (a VM whose driver is gone
// does no GPU work and should not bill all night).
//
// The decision is one pure function, `decide`, in the generated script;
// tests run it (and the whole tick, with fake nvidia-smi, who and curl) on
// recorded samples.
#include <sstream>

#include "core/strings.h"
#include "deploy/internal/generate.h"

namespace gpuplan::deploy::internal {

namespace {

// The Compute REST API version of the deallocate calls.
constexpr const char* kComputeRestApi = "2024-07-01";
// IMDS API versions: instance metadata and the managed identity token.
constexpr const char* kImdsApi = "2021-02-01";
constexpr const char* kImdsTokenApi = "2018-02-01";

}  // namespace

std::string autostop_conf(const DeploySpec& spec) {
  std::ostringstream o;
  o << "# shellcheck shell=bash\n"
    << "# gpuplan autostop settings (sourced by /opt/gpuplan/autostop.sh).\n"
    << "MINUTES=" << spec.autostop_minutes << "\n"
    << "THRESHOLD=" << kAutostopGpuThresholdPercent << "\n"
    << "BUSY_FILE=" << kAutostopBusyFile << "\n";
  return o.str();
}

// autostop.sh, run by the systemd timer each minute. Long because it is a
// template: one fixed bash script (its decide step is tested on its own).
std::string linux_autostop_script() {
  std::ostringstream o;
  o << "#!/bin/bash\n"
    << "# gpuplan autostop: deallocates this VM after MINUTES without work (GPU\n"
    << "# utilization, interactive sessions, the busy file, first-boot setup).\n"
    << "# Deallocated, not stopped: a stopped VM still bills its compute.\n"
    << "# Usage: autostop.sh tick | autostop.sh decide NOW LAST MINUTES THRESHOLD UTILS SESSIONS "
       "BUSY SETUP\n"
    << "set -euo pipefail\n"
    << "CONF=\"${GPUPLAN_AUTOSTOP_CONF:-/etc/gpuplan/autostop.conf}\"\n"
    << "STATE=\"${GPUPLAN_AUTOSTOP_STATE:-/var/lib/gpuplan/autostop}\"\n\n"
    << "# decide NOW LAST_BUSY MINUTES THRESHOLD \"UTILS\" SESSIONS BUSY SETUP prints\n"
    << "#   busy REASON | idle SECONDS_IDLE SECONDS_LEFT | stop SECONDS_IDLE\n"
    << "decide() {\n"
    << "  local now=$1 last=$2 mins=$3 thr=$4 utils=$5 sessions=$6 busy=$7 setup=$8 u\n"
    << "  if [ \"$setup\" = 1 ]; then echo \"busy setup\"; return; fi\n"
    << "  if [ \"$busy\" = 1 ]; then echo \"busy busy-file\"; return; fi\n"
    << "  if [ \"$sessions\" -gt 0 ]; then echo \"busy sessions=$sessions\"; return; fi\n"
    << "  for u in $utils; do\n"
    << "    if [ \"$u\" -ge \"$thr\" ]; then echo \"busy gpu=$u%\"; return; fi\n"
    << "  done\n"
    << "  local idle=$((now - last)) limit=$((mins * 60))\n"
    << "  if [ \"$idle\" -ge \"$limit\" ]; then\n"
    << "    echo \"stop $idle\"\n"
    << "  else\n"
    << "    echo \"idle $idle $((limit - idle))\"\n"
    << "  fi\n"
    << "}\n\n"
    << "imds() {\n"
    << "  curl -sf --max-time 10 -H Metadata:true \"http://169.254.169.254/metadata/$1\"\n"
    << "}\n\n"
    << "# The Compute REST call that deallocates this VM (or scale-set instance),\n"
    << "# with the managed identity's token from the Instance Metadata Service.\n"
    << "deallocate() {\n"
    << "  local q=\"api-version=" << kImdsApi << "&format=text\" sub rg name vmss token resp url\n"
    << "  sub=\"$(imds \"instance/compute/subscriptionId?$q\")\"\n"
    << "  rg=\"$(imds \"instance/compute/resourceGroupName?$q\")\"\n"
    << "  name=\"$(imds \"instance/compute/name?$q\")\"\n"
    << "  vmss=\"$(imds \"instance/compute/vmScaleSetName?$q\" || true)\"\n"
    << "  resp=\"$(imds \"identity/oauth2/token?api-version=" << kImdsTokenApi
    << "&resource=https://management.azure.com/\")\"\n"
    << "  [[ \"$resp\" =~ \\\"access_token\\\":\\\"([^\\\"]+)\\\" ]] || { echo \"autostop: no "
       "managed "
       "identity token\" >&2; return 1; }\n"
    << "  token=\"${BASH_REMATCH[1]}\"\n"
    << "  url=\"https://management.azure.com/subscriptions/$sub/resourceGroups/$rg/providers/"
       "Microsoft.Compute\"\n"
    << "  if [ -n \"$vmss\" ]; then\n"
    << "    url=\"$url/virtualMachineScaleSets/$vmss/virtualMachines/${name##*_}/deallocate\"\n"
    << "  else\n"
    << "    url=\"$url/virtualMachines/$name/deallocate\"\n"
    << "  fi\n"
    << "  echo \"autostop: idle for $MINUTES minutes, deallocating $name\" >&2\n"
    << "  curl -sf --max-time 30 -X POST -H \"Authorization: Bearer $token\" -H \"Content-Length: "
       "0\" "
       "\\\n"
    << "    \"$url?api-version=" << kComputeRestApi << "\"\n"
    << "}\n\n"
    << "tick() {\n"
    << "  # shellcheck source=/dev/null\n"
    << "  . \"$CONF\"\n"
    << "  mkdir -p \"$STATE\"\n"
    << "  local now up boot last utils sessions busy=0 setup=0 d\n"
    << "  now=\"$(date +%s)\"\n"
    << "  up=\"$(cut -d. -f1 /proc/uptime)\"\n"
    << "  boot=$((now - up))\n"
    << "  last=\"$(cat \"$STATE/last_busy\" 2>/dev/null || echo \"$now\")\"\n"
    << "  if [ \"$last\" -lt \"$boot\" ]; then last=\"$boot\"; fi\n"
    << "  utils=\"$(nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits "
       "2>/dev/null "
       "| tr -dc '0-9\\n' | tr '\\n' ' ' || true)\"\n"
    << "  sessions=\"$(who | wc -l)\"\n"
    << "  if [ -e \"$BUSY_FILE\" ]; then busy=1; fi\n"
    << "  if command -v cloud-init >/dev/null 2>&1 &&\n"
    << "     ! cloud-init status 2>/dev/null | grep -qE 'status: (done|error|disabled)'; then\n"
    << "    setup=1\n"
    << "  fi\n"
    // The stack install runs in its own unit after cloud-init has finished
    // (generate_guest.cc): it is first-boot setup too, and may take an hour.
    << "  if systemctl is-active --quiet gpuplan-stack.service 2>/dev/null; then setup=1; fi\n"
    << "  d=\"$(decide \"$now\" \"$last\" \"$MINUTES\" \"$THRESHOLD\" \"$utils\" \"$sessions\" "
       "\"$busy\" "
       "\"$setup\")\"\n"
    << "  echo \"$now $d\" > \"$STATE/last_decision\"\n"
    << "  case \"$d\" in\n"
    << "    busy*) echo \"$now\" > \"$STATE/last_busy\" ;;\n"
    << "    stop*) echo \"$last\" > \"$STATE/last_busy\"; deallocate ;;\n"
    << "    *) echo \"$last\" > \"$STATE/last_busy\" ;;\n"
    << "  esac\n"
    << "}\n\n"
    << "case \"${1:-tick}\" in\n"
    << "  tick) tick ;;\n"
    << "  decide) shift; decide \"$@\" ;;\n"
    << "  *) echo \"usage: autostop.sh tick | decide NOW LAST MINUTES THRESHOLD UTILS SESSIONS "
       "BUSY "
       "SETUP\" >&2; exit 2 ;;\n"
    << "esac\n";
  return o.str();
}

std::string autostop_service() {
  return "[Unit]\n"
         "Description=gpuplan autostop: deallocate this VM when idle\n"
         "After=network-online.target\n\n"
         "[Service]\n"
         "Type=oneshot\n"
         "ExecStart=/opt/gpuplan/autostop.sh tick\n";
}

std::string autostop_timer() {
  return "[Unit]\n"
         "Description=gpuplan autostop, once a minute\n\n"
         "[Timer]\n"
         "OnBootSec=2min\n"
         "OnUnitActiveSec=60s\n"
         "AccuracySec=10s\n\n"
         "[Install]\n"
         "WantedBy=timers.target\n";
}

std::string windows_autostop_script(const DeploySpec& spec) {
  std::ostringstream o;
  o << "# gpuplan autostop (scheduled task, once a minute): deallocates this VM after "
    << spec.autostop_minutes << " minutes\n"
    << "# without GPU work, an interactive session or C:\\gpuplan\\busy. Deallocated, not\n"
    << "# stopped: a stopped VM still bills its compute.\n"
    << "$ErrorActionPreference = 'Stop'\n"
    << "$minutes = " << spec.autostop_minutes << "; $threshold = " << kAutostopGpuThresholdPercent
    << "\n"
    << "$state = 'C:\\gpuplan\\autostop'; New-Item -ItemType Directory -Force -Path $state | "
       "Out-Null\n"
    << "$now = [DateTimeOffset]::UtcNow.ToUnixTimeSeconds()\n"
    << "$boot = [DateTimeOffset]::new((Get-CimInstance Win32_OperatingSystem).LastBootUpTime)."
       "ToUnixTimeSeconds()\n"
    << "$last = $now; if (Test-Path \"$state\\last_busy\") { $last = [int64](Get-Content "
       "\"$state\\last_busy\") }\n"
    << "if ($last -lt $boot) { $last = $boot }\n"
    << "$smi = Join-Path $env:WINDIR 'System32\\nvidia-smi.exe'\n"
    << "$utils = @(); if (Test-Path $smi) { $utils = @(& $smi --query-gpu=utilization.gpu "
       "--format=csv,noheader,nounits | ForEach-Object { [int]$_ }) }\n"
    // quser writes "No User exists" to stderr when nobody is logged on;
    // under 'Stop', Windows PowerShell 5.1 turns a native command's
    // redirected stderr into a terminating error (PowerShell/PowerShell
    // #4002), which would end the tick before the idle check. cmd does the
    // redirect, so PowerShell never sees it.
    << "$sessions = @(cmd /c 'quser 2>nul' | Select-Object -Skip 1).Count\n"
    << "$busy = (Test-Path 'C:\\gpuplan\\busy') -or ($sessions -gt 0) -or (@($utils | Where-Object "
       "{ $_ -ge $threshold }).Count -gt 0)\n"
    << "if ($busy) { Set-Content \"$state\\last_busy\" $now; exit 0 }\n"
    << "Set-Content \"$state\\last_busy\" $last\n"
    << "if (($now - $last) -lt ($minutes * 60)) { exit 0 }\n"
    << "$h = @{ Metadata = 'true' }\n"
    << "$c = Invoke-RestMethod -Headers $h -Uri 'http://169.254.169.254/metadata/instance/"
       "compute?api-version="
    << kImdsApi << "'\n"
    << "$t = Invoke-RestMethod -Headers $h -Uri 'http://169.254.169.254/metadata/identity/oauth2/"
       "token?api-version="
    << kImdsTokenApi << "&resource=https://management.azure.com/'\n"
    << "$base = \"https://management.azure.com/subscriptions/$($c.subscriptionId)/resourceGroups/"
       "$($c.resourceGroupName)/providers/Microsoft.Compute\"\n"
    << "if ($c.vmScaleSetName) { $url = \"$base/virtualMachineScaleSets/$($c.vmScaleSetName)/"
       "virtualMachines/$($c.name.Split('_')[-1])/deallocate\" }\n"
    << "else { $url = \"$base/virtualMachines/$($c.name)/deallocate\" }\n"
    << "Invoke-RestMethod -Method Post -Headers @{ Authorization = \"Bearer $($t.access_token)\" } "
       "-Uri \"${url}?api-version="
    << kComputeRestApi << "\"\n";
  return o.str();
}

}  // namespace gpuplan::deploy::internal
