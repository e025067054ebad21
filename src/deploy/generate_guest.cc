// What runs inside the VM: cloud-init.yaml on Linux, setup.ps1 on Windows
// (Azure's Windows images do not run cloud-init; the Custom Script Extension
// runs setup.ps1, which deploy.sh and the template pass as custom data).
// Both install the pinned stack, then check it: `gpuplan doctor` when
// gpuplan is installed on the VM, else the same checks with nvidia-smi, nvcc
// and torch.
#include <sstream>

#include "core/strings.h"
#include "deploy/internal/generate.h"

namespace gpuplan::deploy {

using namespace internal;

namespace {

// SHA-256 of NVIDIA's cuda-keyring_1.1-1_all.deb per repository (as pinned by
// GoogleCloudPlatform/compute-gpu-installation's NVIDIA_KEYRING_SHA256_SUMS
// and by Dockerfiles that verify the same download).
constexpr const char* kCudaKeyringSha256Ubuntu2204 =
    "d93190d50b98ad4699ff40f4f7af50f16a76dac3bb8da1eaaf366d47898ff8df";
constexpr const char* kCudaKeyringSha256Ubuntu2404 =
    "d2a6b11c096396d868758b86dab1823b25e14d70333f1dfa74da5ddaf6a06dba";

// Indents every line of a block for a YAML literal (`content: |`).
std::string indent(const std::string& text, int spaces) {
  std::string pad(static_cast<size_t>(spaces), ' ');
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out += line.empty() ? "\n" : pad + line + "\n";
  return out;
}

// The Linux stack installer cloud-init runs: CUDA repository, driver,
// toolkit, cuDNN, the PyTorch venv. Long because it is a template: the
// script's text in order, with the resolved versions spliced in.
std::string linux_install_script(const DeploySpec& spec) {
  const Stack& st = spec.stack;
  const std::string cuda = st.cuda.to_string();
  const std::string dash = cuda_dash(spec);
  std::ostringstream o;
  o << "#!/bin/bash\n"
    << "# Installs the GPU stack gpuplan resolved for " << spec.size.name << ":\n"
    << "#   " << describe_stack(spec) << "\n"
    << "set -euo pipefail\n"
    << "export DEBIAN_FRONTEND=noninteractive\n"
    << "log() { echo \"gpuplan-stack: $*\"; }\n"
    << "# Azure's driver extension and cloud-init's packages use apt too: wait\n"
    << "# for the dpkg lock instead of failing on it.\n"
    << "apt_get() { apt-get -o DPkg::Lock::Timeout=1200 \"$@\"; }\n"
    << "# A reboot (the driver extension may reboot the VM) can leave dpkg half\n"
    << "# configured; gpuplan-stack.service runs this script again after it.\n"
    << "for _ in $(seq 1 60); do dpkg --configure -a && break; sleep 20; done\n\n"
    << "# NVIDIA's CUDA apt repository, signed (cuda-keyring). The keyring package\n"
    << "# itself is checked against its known SHA-256 before it is installed (the\n"
    << "# sums GoogleCloudPlatform/compute-gpu-installation pins for the same file).\n"
    << "# shellcheck source=/dev/null\n"
    << ". /etc/os-release\n"
    << "repo=\"ubuntu${VERSION_ID//./}\"\n"
    << "case \"$repo\" in\n"
    << "  ubuntu2204) keyring_sha256=" << kCudaKeyringSha256Ubuntu2204 << " ;;\n"
    << "  ubuntu2404) keyring_sha256=" << kCudaKeyringSha256Ubuntu2404 << " ;;\n"
    << "  *) log \"no known cuda-keyring checksum for $repo\"; exit 1 ;;\n"
    << "esac\n"
    << "if ! dpkg -s cuda-keyring >/dev/null 2>&1; then\n"
    << "  curl -fsSL --proto '=https' -o /tmp/cuda-keyring.deb \\\n"
    << "    "
       "\"https://developer.download.nvidia.com/compute/cuda/repos/${repo}/x86_64/"
       "cuda-keyring_1.1-1_all.deb\"\n"
    << "  echo \"${keyring_sha256}  /tmp/cuda-keyring.deb\" | sha256sum -c - \\\n"
    << "    || { log \"cuda-keyring checksum mismatch: not installing it\"; exit 1; }\n"
    << "  apt_get install -y -q /tmp/cuda-keyring.deb\n"
    << "fi\n";
  if (spec.arm64) {
    // The keyring package is architecture-independent; its sources entry
    // names the x86_64 repository, so an Arm64 VM points apt at the sbsa
    // (Arm64 server) one instead, signed by the same key: apt refuses the
    // repository if it is not.
    o << "# Arm64 (" << spec.size.name << "): NVIDIA's sbsa repository, same signing key.\n"
      << "rm -f /etc/apt/sources.list.d/cuda-${repo}-x86_64.list\n"
      << "echo \"deb [signed-by=/usr/share/keyrings/cuda-archive-keyring.gpg] "
         "https://developer.download.nvidia.com/compute/cuda/repos/${repo}/sbsa/ /\" \\\n"
      << "  > /etc/apt/sources.list.d/cuda-${repo}-sbsa.list\n";
  }
  o << "apt_get update -q\n\n";
  switch (st.driver_source) {
    case DriverSource::kCloudInit:
      o << "log \"installing NVIDIA driver branch " << st.driver_branch << " (CUDA " << cuda
        << " needs >= " << st.min_driver.to_string() << ")\"\n"
        << "apt_get install -y -q " << st.driver_package << "\n"
        << "modprobe nvidia || log \"the driver loads after a reboot\"\n\n";
      break;
    case DriverSource::kExtension:
      o << "log \"waiting for the NVIDIA driver from Azure's extension\"\n"
        << "for _ in $(seq 1 60); do\n"
        << "  nvidia-smi >/dev/null 2>&1 && break\n"
        << "  sleep 30\n"
        << "done\n"
        << "nvidia-smi >/dev/null 2>&1 || { log \"no NVIDIA driver after 30 minutes; see "
           "/var/log/azure/nvidia-vmext-status\"; exit 1; }\n\n";
      break;
    case DriverSource::kImage:
      o << "log \"using the image's NVIDIA driver and fabric manager (CUDA " << cuda
        << " needs >= " << st.min_driver.to_string() << ")\"\n\n";
      break;
  }
  o << "log \"installing CUDA toolkit " << cuda << " (no driver packages)\"\n"
    << "apt_get install -y -q cuda-toolkit-" << dash << "\n"
    << "echo \"export PATH=/usr/local/cuda-" << cuda
    << "/bin:\\$PATH\" > /etc/profile.d/gpuplan-cuda.sh\n";
  if (st.cudnn) {
    o << "log \"installing cuDNN " << st.cudnn->to_string() << "\"\n"
      << "apt_get install -y -q \"libcudnn9-cuda-" << st.cuda.major() << "="
      << st.cudnn->to_string() << ".*\"\n";
  }
  o << "\nlog \"installing PyTorch " << st.pytorch.to_string() << " (" << st.wheel_variant
    << ") into " << kVenv << "\"\n"
    << "apt_get install -y -q python3-venv python3-pip\n"
    << "python3 -m venv " << kVenv << "\n"
    << kVenv << "/bin/pip install --quiet --upgrade pip\n"
    << kVenv << "/bin/pip install --quiet \"torch==" << st.pytorch.to_string()
    << ".*\" --index-url " << st.pytorch_index_url << "\n"
    << "log \"done\"\n";
  return o.str();
}

std::string linux_check_script(const DeploySpec& spec) {
  const Stack& st = spec.stack;
  const std::string n = std::to_string(spec.gpus_per_vm);
  const std::string cuda = st.cuda.to_string();
  const std::string min = st.min_driver.to_string();
  std::ostringstream o;
  o << "#!/bin/bash\n"
    << "# Checks the stack: gpuplan doctor when gpuplan is installed, else the same\n"
    << "# checks with nvidia-smi, nvcc and torch. Exit 0 only when all pass.\n"
    << "set -uo pipefail\n"
    << "export PATH=\"/usr/local/cuda-" << cuda << "/bin:$PATH\"\n";
  if (spec.security_type == SecurityType::kConfidentialVm) {
    // A Confidential VM whose GPU is not in confidential-computing mode is
    // not confidential; az-cgpu-onboarding checks the mode the same way.
    o << "fail=0\n"
      << "if nvidia-smi conf-compute -f 2>/dev/null | grep -q 'CC status: ON'; then\n"
      << "  echo \"ok: GPU confidential computing on (nvidia-smi conf-compute -f)\"\n"
      << "else\n"
      << "  echo \"FAIL: the GPU is not in confidential-computing mode (nvidia-smi conf-compute -f "
         "does not say 'CC status: ON'); see Azure/az-cgpu-onboarding\"; fail=1\n"
      << "fi\n"
      << "if command -v gpuplan >/dev/null 2>&1; then\n"
      << "  " << doctor_command(spec) << " || fail=1\n"
      << "  exit \"$fail\"\n"
      << "fi\n";
  } else {
    o << "if command -v gpuplan >/dev/null 2>&1; then\n"
      << "  exec " << doctor_command(spec) << "\n"
      << "fi\n"
      << "fail=0\n";
  }
  o << "gpus=\"$(nvidia-smi --list-gpus | wc -l)\"\n"
    << "if [ \"$gpus\" -eq " << n
    << " ]; then echo \"ok: $gpus GPU(s)\"; else echo \"FAIL: expected " << n
    << " GPU(s), nvidia-smi lists $gpus\"; fail=1; fi\n"
    << "driver=\"$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n 1)\"\n"
    << "if [ \"$(printf '%s\\n%s\\n' " << min << " \"$driver\" | sort -V | head -n 1)\" = \"" << min
    << "\" ]; then\n"
    << "  echo \"ok: driver $driver >= " << min << " (CUDA " << cuda << ")\"\n"
    << "else\n"
    << "  echo \"FAIL: driver '$driver' is older than " << min << ", which CUDA " << cuda
    << " needs\"; fail=1\n"
    << "fi\n"
    << "if nvcc --version | grep -q \"release " << cuda << "\"; then echo \"ok: nvcc " << cuda
    << "\"; else echo \"FAIL: nvcc is not CUDA " << cuda << "\"; fail=1; fi\n"
    << "if " << kVenv
    << "/bin/python -c 'import sys, torch; n = torch.cuda.device_count(); "
       "print(\"torch\", torch.__version__, \"CUDA\", torch.version.cuda, \"GPUs\", n); "
       "sys.exit(0 if torch.cuda.is_available() and n == "
    << n << " else 1)'; then\n"
    << "  echo \"ok: torch sees " << n << " GPU(s)\"\n"
    << "else\n"
    << "  echo \"FAIL: torch does not see " << n << " GPU(s)\"; fail=1\n"
    << "fi\n"
    << "exit \"$fail\"\n";
  return o.str();
}

// The unit that installs and checks the stack. cloud-init's runcmd runs once
// per instance and marks itself done before it runs (its semaphore), so a
// reboot in the middle — Azure's NVIDIA driver extension "might reboot" the
// VM while it installs (learn.microsoft.com, "NVIDIA GPU Driver Extension
// for Linux") — lost the rest of the install for good. An enabled unit runs
// again at every boot until the install has finished
// (/var/lib/gpuplan/stack-installed), then checks the stack once more.
// Type=exec, not oneshot: a target waits for the oneshot units it wants, so
// every boot before the install finished would have waited for it (and
// cloud-final, ordered after multi-user.target, with it). A failed install
// (a lock held past the wait, a download that broke) runs again two
// minutes later, at most ten times an hour.
std::string stack_service() {
  return "[Unit]\n"
         "Description=gpuplan: install and check the GPU stack (resumes after a reboot)\n"
         "Wants=network-online.target\n"
         "After=network-online.target\n"
         "ConditionPathExists=!/var/lib/gpuplan/stack-installed\n"
         "StartLimitIntervalSec=3600\n"
         "StartLimitBurst=10\n"
         "\n"
         "[Service]\n"
         "Type=exec\n"
         "ExecStart=/bin/bash -c 'set -o pipefail; /opt/gpuplan/install-stack.sh 2>&1 | tee -a "
         "/var/log/gpuplan-install.log && mkdir -p /var/lib/gpuplan && touch "
         "/var/lib/gpuplan/stack-installed && /opt/gpuplan/check-stack.sh 2>&1 | tee "
         "/var/log/gpuplan-check.log'\n"
         "Restart=on-failure\n"
         "RestartSec=120\n"
         "\n"
         "[Install]\n"
         "WantedBy=multi-user.target\n";
}

}  // namespace

std::string render_cloud_init(const DeploySpec& spec) {
  std::ostringstream o;
  o << "#cloud-config\n"
    << "# Generated by gpuplan for " << describe_option(spec) << "\n"
    << "# GPU stack: " << describe_stack(spec) << "\n"
    << "# Logs: /var/log/gpuplan-install.log, /var/log/gpuplan-check.log\n"
    << "package_update: true\n"
    << "packages:\n"
    << "  - ca-certificates\n"
    << "  - curl\n"
    << "# SSH: keys only.\n"
    << "ssh_pwauth: false\n"
    << "disable_root: true\n"
    << "# The data disk (LUN 0) on /data.\n"
    << "disk_setup:\n"
    << "  /dev/disk/azure/scsi1/lun0:\n"
    << "    table_type: gpt\n"
    << "    layout: true\n"
    << "    overwrite: false\n"
    << "fs_setup:\n"
    << "  - device: /dev/disk/azure/scsi1/lun0\n"
    << "    partition: auto\n"
    << "    filesystem: ext4\n"
    << "    label: data\n"
    << "mounts:\n"
    << "  - [\"/dev/disk/azure/scsi1/lun0-part1\", \"/data\", \"auto\", \"defaults,nofail\", "
       "\"0\", \"2\"]\n"
    << "write_files:\n"
    << "  - path: /opt/gpuplan/install-stack.sh\n"
    << "    permissions: '0755'\n"
    << "    content: |\n"
    << indent(linux_install_script(spec), 6) << "  - path: /opt/gpuplan/check-stack.sh\n"
    << "    permissions: '0755'\n"
    << "    content: |\n"
    << indent(linux_check_script(spec), 6)
    << "  - path: /etc/systemd/system/gpuplan-stack.service\n"
    << "    permissions: '0644'\n"
    << "    content: |\n"
    << indent(stack_service(), 6);
  if (spec.autostop_minutes > 0) {
    o << "  - path: /opt/gpuplan/autostop.sh\n"
      << "    permissions: '0755'\n"
      << "    content: |\n"
      << indent(linux_autostop_script(), 6) << "  - path: /etc/gpuplan/autostop.conf\n"
      << "    permissions: '0644'\n"
      << "    content: |\n"
      << indent(autostop_conf(spec), 6)
      << "  - path: /etc/systemd/system/gpuplan-autostop.service\n"
      << "    permissions: '0644'\n"
      << "    content: |\n"
      << indent(autostop_service(), 6) << "  - path: /etc/systemd/system/gpuplan-autostop.timer\n"
      << "    permissions: '0644'\n"
      << "    content: |\n"
      << indent(autostop_timer(), 6);
  }
  o << "runcmd:\n"
    << "  - [systemctl, daemon-reload]\n";
  if (spec.autostop_minutes > 0) {
    // First: the timer counts first-boot setup as work, so it may start now.
    o << "  - [systemctl, enable, --now, gpuplan-autostop.timer]\n";
  }
  // --no-block: runcmd is part of cloud-final.service; it queues the start
  // and returns, so cloud-init finishes while the install runs (autostop
  // counts the running unit as setup).
  o << "  - [systemctl, enable, gpuplan-stack.service]\n"
    << "  - [systemctl, start, --no-block, gpuplan-stack.service]\n";
  return o.str();
}

// setup.ps1: the Windows guest's first-boot script (CUDA, Python, PyTorch,
// then the checks). Long because it is a template: the script's text in
// order, with the stack's versions spliced in; no decisions are made here.
std::string render_setup_ps1(const DeploySpec& spec) {
  const Stack& st = spec.stack;
  const std::string cuda = st.cuda.to_string();
  const std::string n = std::to_string(spec.gpus_per_vm);
  const std::string cuda_full = cuda + ".0";
  const std::string py = kWindowsPython;
  const std::vector<std::string> pv = strings::split(py, '.');
  const std::string py_dir = "Python" + pv.at(0) + pv.at(1);
  std::ostringstream o;
  o << "# setup.ps1 - generated by gpuplan for " << describe_option(spec) << "\n"
    << "# GPU stack: " << describe_stack(spec) << "\n"
    << "# Run once by the Custom Script Extension (from custom data). Log: C:\\gpuplan\\setup.log\n"
    << "$ErrorActionPreference = 'Stop'\n"
    << "$ProgressPreference = 'SilentlyContinue'\n"
    << "New-Item -ItemType Directory -Force -Path C:\\gpuplan | Out-Null\n"
    << "Start-Transcript -Path C:\\gpuplan\\setup.log -Append | Out-Null\n\n"
    << "# Every downloaded installer must carry a valid Authenticode signature from\n"
    << "# its publisher before it runs (Get-AuthenticodeSignature).\n"
    << "function Assert-Signed([string]$Path, [string]$Publisher) {\n"
    << "  $sig = Get-AuthenticodeSignature -FilePath $Path\n"
    << "  if ($sig.Status -ne 'Valid' -or $sig.SignerCertificate.Subject -notlike "
       "\"*$Publisher*\") {\n"
    << "    throw \"$Path is not signed by $Publisher ($($sig.Status)); not running it\"\n"
    << "  }\n"
    << "}\n\n"
    << "# 1. The data disk: initialise and format any raw disk.\n"
    << "Get-Disk | Where-Object PartitionStyle -eq 'RAW' |\n"
    << "  Initialize-Disk -PartitionStyle GPT -PassThru |\n"
    << "  New-Partition -AssignDriveLetter -UseMaximumSize |\n"
    << "  Format-Volume -FileSystem NTFS -NewFileSystemLabel data -Confirm:$false | Out-Null\n\n"
    << "# 2. Wait for the NVIDIA driver from the NvidiaGpuDriverWindows extension.\n"
    << "$smi = Join-Path $env:WINDIR 'System32\\nvidia-smi.exe'\n"
    << "for ($i = 0; $i -lt 60 -and -not (Test-Path $smi); $i++) { Start-Sleep -Seconds 30 }\n"
    << "if (-not (Test-Path $smi)) { throw 'no NVIDIA driver after 30 minutes "
       "(NvidiaGpuDriverWindows extension)' }\n\n"
    << "# 3. CUDA toolkit " << cuda << " (NVIDIA's network installer: compiler and runtime only).\n"
    << "$cudaUrl = 'https://developer.download.nvidia.com/compute/cuda/" << cuda_full
    << "/network_installers/cuda_" << cuda_full << "_windows_network.exe'\n"
    << "Invoke-WebRequest -Uri $cudaUrl -OutFile C:\\gpuplan\\cuda.exe -UseBasicParsing\n"
    << "Assert-Signed C:\\gpuplan\\cuda.exe 'NVIDIA Corporation'\n"
    << "Start-Process -FilePath C:\\gpuplan\\cuda.exe -ArgumentList '-s', 'nvcc_" << cuda
    << "', 'cudart_" << cuda << "' -Wait\n"
    << "$cudaBin = 'C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v" << cuda << "\\bin'\n"
    << "$env:Path = \"$cudaBin;$env:Path\"\n\n"
    << "# 4. Python " << py << " and PyTorch " << st.pytorch.to_string() << " (" << st.wheel_variant
    << ").\n"
    << "$pyUrl = 'https://www.python.org/ftp/python/" << py << "/python-" << py << "-amd64.exe'\n"
    << "Invoke-WebRequest -Uri $pyUrl -OutFile C:\\gpuplan\\python.exe -UseBasicParsing\n"
    << "Assert-Signed C:\\gpuplan\\python.exe 'Python Software Foundation'\n"
    << "Start-Process -FilePath C:\\gpuplan\\python.exe -ArgumentList '/quiet', "
       "'InstallAllUsers=1', "
       "'PrependPath=1' -Wait\n"
    << "$python = 'C:\\Program Files\\" << py_dir << "\\python.exe'\n"
    << "& $python -m pip install --quiet 'torch==" << st.pytorch.to_string() << ".*' --index-url "
    << st.pytorch_index_url << "\n"
    << "if ($LASTEXITCODE -ne 0) { throw 'pip install torch failed' }\n\n";
  if (spec.autostop_minutes > 0) {
    o << "# Autostop: a scheduled task (SYSTEM, once a minute) deallocates the VM after "
      << spec.autostop_minutes << " idle minutes.\n"
      << "$autostop = @'\n"
      << windows_autostop_script(spec) << "'@\n"
      << "Set-Content -Path C:\\gpuplan\\autostop.ps1 -Value $autostop\n"
      << "$action = New-ScheduledTaskAction -Execute 'powershell.exe' -Argument '-NoProfile "
         "-ExecutionPolicy Bypass -File C:\\gpuplan\\autostop.ps1'\n"
      << "$trigger = New-ScheduledTaskTrigger -Once -At (Get-Date) -RepetitionInterval "
         "(New-TimeSpan -Minutes 1)\n"
      << "Register-ScheduledTask -TaskName gpuplan-autostop -Action $action -Trigger $trigger "
         "-User SYSTEM -RunLevel Highest -Force | Out-Null\n\n";
  }
  o << "# 5. Checks: gpuplan doctor when installed, else nvidia-smi, nvcc and torch.\n"
    << "if (Get-Command gpuplan -ErrorAction SilentlyContinue) {\n"
    << "  & gpuplan doctor --expect-gpus " << n << " --expect-cuda " << cuda << "\n"
    << "  $code = $LASTEXITCODE\n"
    << "  Stop-Transcript | Out-Null\n"
    << "  exit $code\n"
    << "}\n"
    << "$fail = 0\n"
    << "$gpus = @(& $smi --list-gpus).Count\n"
    << "if ($gpus -eq " << n
    << ") { Write-Output \"ok: $gpus GPU(s)\" } else { Write-Output "
       "\"FAIL: expected "
    << n << " GPU(s), nvidia-smi lists $gpus\"; $fail = 1 }\n"
    << "$driver = (& $smi --query-gpu=driver_version --format=csv,noheader | Select-Object -First "
       "1).Trim()\n"
    << "if ([version]$driver -ge [version]'" << st.min_driver.to_string()
    << "') { Write-Output "
       "\"ok: driver $driver >= "
    << st.min_driver.to_string()
    << "\" } else { Write-Output "
       "\"FAIL: driver $driver is older than "
    << st.min_driver.to_string() << ", which CUDA " << cuda << " needs\"; $fail = 1 }\n"
    << "if (& (Join-Path $cudaBin 'nvcc.exe') --version | Select-String -Quiet 'release " << cuda
    << "') { Write-Output 'ok: nvcc " << cuda << "' } else { Write-Output 'FAIL: nvcc is not CUDA "
    << cuda << "'; $fail = 1 }\n"
    << "& $python -c \"import sys, torch; n = torch.cuda.device_count(); print('torch', "
       "torch.__version__, 'CUDA', torch.version.cuda, 'GPUs', n); "
       "sys.exit(0 if torch.cuda.is_available() and n == "
    << n << " else 1)\"\n"
    << "if ($LASTEXITCODE -eq 0) { Write-Output 'ok: torch sees " << n
    << " GPU(s)' } else { "
       "Write-Output 'FAIL: torch does not see "
    << n << " GPU(s)'; $fail = 1 }\n"
    << "Stop-Transcript | Out-Null\n"
    << "exit $fail\n";
  return o.str();
}

}  // namespace gpuplan::deploy
