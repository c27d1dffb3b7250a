//===- Launcher.cpp - Ranks and rendezvous from launcher variables --------===//
#include "bootstrap/Launcher.h"

#include <climits>

namespace hccl::rt {

bool parseNonNegativeInt(const std::string &s, int &out) {
  if (s.empty() || s.size() > 10)
    return false;
  long long v = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return false;
    v = v * 10 + (c - '0');
  }
  if (v > INT_MAX)
    return false;
  out = static_cast<int>(v);
  return true;
}

StatusOr<LaunchEnv>
readLaunchEnv(const std::function<const char *(const char *)> &getenv) {
  auto get = [&](const char *n) -> std::string {
    const char *v = getenv(n);
    return v ? std::string(v) : std::string();
  };
  struct Source {
    const char *name, *rankVar, *sizeVar;
  };
  const Source sources[] = {
      {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
      {"PMI", "PMI_RANK", "PMI_SIZE"},
      {"torchrun", "RANK", "WORLD_SIZE"}};
  LaunchEnv e;
  bool found = false;
  for (const Source &s : sources) {
    std::string r = get(s.rankVar), n = get(s.sizeVar);
    if (r.empty() && n.empty())
      continue;
    if (r.empty() || n.empty())
      return errPara(std::string(s.rankVar) + " and " + s.sizeVar +
                     " must be set together (" +
                     (r.empty() ? s.rankVar : s.sizeVar) + " is missing)");
    if (!parseNonNegativeInt(r, e.rank))
      return errPara(std::string(s.rankVar) + "=" + r +
                     ": expected a non-negative integer");
    if (!parseNonNegativeInt(n, e.size) || e.size < 1)
      return errPara(std::string(s.sizeVar) + "=" + n +
                     ": expected an integer >= 1");
    if (e.rank >= e.size)
      return errPara(std::string(s.rankVar) + "=" + r + " is not below " +
                     s.sizeVar + "=" + n);
    e.source = s.name;
    found = true;
    break;
  }
  if (!found)
    return errPara(
        "HcclCommInitFromEnv: no launcher variables found (expected "
        "OMPI_COMM_WORLD_RANK/SIZE, PMI_RANK/PMI_SIZE or RANK/WORLD_SIZE)");
  e.rootInfoFile = get("HCCL_ROOT_INFO_FILE");
  e.masterAddr = get("MASTER_ADDR");
  std::string port = get("MASTER_PORT");
  if (!port.empty()) {
    if (!parseNonNegativeInt(port, e.masterPort) || e.masterPort < 1 ||
        e.masterPort > 65535)
      return errPara("MASTER_PORT=" + port +
                     ": expected a port number in 1..65535");
  }
  if (e.rootInfoFile.empty() && e.size > 1) {
    if (e.masterAddr.empty() || e.masterPort == 0)
      return errPara(
          "HcclCommInitFromEnv: set MASTER_ADDR and MASTER_PORT (rank 0's host "
          "and a free port) or HCCL_ROOT_INFO_FILE (a path on a shared "
          "filesystem) so that the ranks can meet");
  }
  for (const char *v :
       {"TORCHELASTIC_RUN_ID", "PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid",
        "PMI_JOBID", "SLURM_JOB_ID"}) {
    std::string j = get(v);
    if (!j.empty()) {
      e.jobId = j;
      break;
    }
  }
  return e;
}

} // namespace hccl::rt
