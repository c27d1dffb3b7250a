//===- ChromeTrace.cpp - Chrome trace events ------------------------------===//
#include "ChromeTrace.h"

#include <sstream>

namespace hccl::tools {
namespace {

std::string quote(const std::string &s) {
  std::string q = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\')
      q += '\\';
    if (static_cast<unsigned char>(ch) >= 0x20)
      q += ch;
  }
  return q + "\"";
}

} // namespace

void appendTraceEvents(std::ostream &out, int pid,
                       const std::vector<TraceEvent> &events, bool &first) {
  auto emit = [&](const std::string &s) {
    out << (first ? "" : ",\n") << s;
    first = false;
  };
  emit("{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": " +
       std::to_string(pid) + ", \"args\": {\"name\": \"rank " +
       std::to_string(pid) + "\"}}");
  for (const TraceEvent &e : events) {
    std::ostringstream os;
    os.precision(3);
    os << std::fixed << "{\"name\": " << quote(e.name)
       << ", \"cat\": " << quote(e.cat) << ", \"ph\": \"X\", \"pid\": " << pid
       << ", \"tid\": " << e.tid << ", \"ts\": " << e.ts
       << ", \"dur\": " << e.dur << "}";
    emit(os.str());
  }
}

void writeTrace(std::ostream &out,
                const std::vector<std::vector<TraceEvent>> &perRank) {
  out << "{\"traceEvents\": [\n";
  bool first = true;
  for (size_t r = 0; r < perRank.size(); ++r)
    appendTraceEvents(out, static_cast<int>(r), perRank[r], first);
  out << "\n], \"displayTimeUnit\": \"ms\"}\n";
}

} // namespace hccl::tools
