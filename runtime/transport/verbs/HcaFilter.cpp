//===- HcaFilter.cpp - HCCL_IB_HCA device/port whitelist ------------------===//
#include "transport/verbs/HcaFilter.h"

#include <cstdlib>
#include <sstream>

namespace hccl::rt::verbs {

bool hcaMatches(const std::string &spec, const std::string &device, int port) {
  if (spec.empty())
    return true;
  std::string s = spec;
  bool exclude = false, exact = false;
  if (!s.empty() && s[0] == '^') {
    exclude = true;
    s.erase(0, 1);
  }
  if (!s.empty() && s[0] == '=') {
    exact = true;
    s.erase(0, 1);
  }
  bool listed = false;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    std::string name = item;
    int wantPort = -1;
    size_t colon = item.find(':');
    if (colon != std::string::npos) {
      name = item.substr(0, colon);
      wantPort = std::atoi(item.c_str() + colon + 1);
    }
    bool nameOk =
        exact ? device == name : device.compare(0, name.size(), name) == 0;
    if (nameOk && (wantPort < 0 || wantPort == port))
      listed = true;
  }
  return exclude ? !listed : listed;
}

} // namespace hccl::rt::verbs
