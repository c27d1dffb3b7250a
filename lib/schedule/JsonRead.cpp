//===- JsonRead.cpp - The one JSON reading layer --------------------------===//
#include "hccl-mlir/schedule/JsonRead.h"

#include <cmath>

namespace hccl::sched::jsonread {

std::string join(const std::string &path, const std::string &key) {
  return path.empty() ? key : path + "." + key;
}

std::string at(const std::string &path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

std::string describe(const Json &v) {
  if (!v.is_number())
    return v.type_name();
  if (v.is_number_float() && !std::isfinite(v.get<double>()))
    return "a number out of range";
  return v.dump();
}

static Status error(const std::string &path, const std::string &msg) {
  return Status::error(path.empty() ? msg : path + ": " + msg);
}

Status parseObject(std::string_view text, const std::string &what, Json &out) {
  out = Json::parse(text.begin(), text.end(), nullptr, false);
  if (out.is_discarded())
    return error(what, "malformed JSON");
  if (!out.is_object())
    return error(what, "expected a JSON object at the top");
  return Status::ok();
}

Status object(const Json &j, const std::string &path,
              std::initializer_list<const char *> allowed) {
  if (!j.is_object())
    return error(path, "expected an object, found " + describe(j));
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool ok = false;
    for (const char *k : allowed)
      ok |= it.key() == k;
    if (ok)
      continue;
    std::string list;
    for (const char *k : allowed)
      list += (list.empty() ? "" : ", ") + std::string(k);
    return error(join(path, it.key()), "unknown key (expected " + list + ")");
  }
  return Status::ok();
}

Status integer(const Json &v, const std::string &path, int64_t lo, int64_t hi,
               int64_t &out) {
  std::string range =
      hi == kNoLimit ? ">= " + std::to_string(lo)
                     : "in " + std::to_string(lo) + ".." + std::to_string(hi);
  if (!v.is_number_integer())
    return error(path,
                 "expected an integer " + range + ", found " + describe(v));
  if (v.is_number_unsigned() &&
      v.get<uint64_t>() > static_cast<uint64_t>(kNoLimit))
    return error(path,
                 "expected an integer " + range + ", found one out of range");
  int64_t x = v.get<int64_t>();
  if (x < lo || x > hi)
    return error(path, "expected an integer " + range + ", found " +
                           std::to_string(x));
  out = x;
  return Status::ok();
}

Status number(const Json &v, const std::string &path, double lo, bool strict,
              double &out) {
  bool ok = v.is_number() && std::isfinite(v.get<double>()) &&
            (strict ? v.get<double>() > lo : v.get<double>() >= lo);
  if (!ok) {
    std::string bound = lo == std::floor(lo) && std::fabs(lo) < 1e15
                            ? std::to_string(static_cast<int64_t>(lo))
                            : Json(lo).dump();
    std::string want = lo == 0 && strict ? "a positive number"
                                         : std::string("a number ") +
                                               (strict ? "> " : ">= ") + bound;
    return error(path, "expected " + want + ", found " + describe(v));
  }
  out = v.get<double>();
  return Status::ok();
}

Status string(const Json &v, const std::string &path, std::string &out) {
  if (!v.is_string())
    return error(path, "expected a string, found " + describe(v));
  out = v.get<std::string>();
  return Status::ok();
}

Status intArray(const Json &v, const std::string &path, int64_t lo, int64_t hi,
                std::vector<int64_t> &out) {
  if (!v.is_array())
    return error(path, "expected an array, found " + describe(v));
  out.clear();
  out.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    int64_t x = 0;
    if (Status s = integer(v[i], at(path, i), lo, hi, x); !s)
      return s;
    out.push_back(x);
  }
  return Status::ok();
}

Status stringArray(const Json &v, const std::string &path,
                   std::vector<std::string> &out) {
  if (!v.is_array())
    return error(path, "expected an array, found " + describe(v));
  out.clear();
  out.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    std::string x;
    if (Status s = string(v[i], at(path, i), x); !s)
      return s;
    out.push_back(std::move(x));
  }
  return Status::ok();
}

Status field(const Json &o, const char *key, const std::string &path,
             bool required, Json::const_iterator &it, bool &present) {
  it = o.find(key);
  present = it != o.end();
  if (!present && required)
    return error(join(path, key), "missing");
  return Status::ok();
}

Status intField(const Json &o, const char *key, const std::string &path,
                int64_t lo, int64_t hi, int64_t &out, bool required) {
  Json::const_iterator it;
  bool present = false;
  if (Status s = field(o, key, path, required, it, present); !s || !present)
    return s;
  return integer(*it, join(path, key), lo, hi, out);
}

Status numberField(const Json &o, const char *key, const std::string &path,
                   double lo, bool strict, double &out, bool required) {
  Json::const_iterator it;
  bool present = false;
  if (Status s = field(o, key, path, required, it, present); !s || !present)
    return s;
  return number(*it, join(path, key), lo, strict, out);
}

Status stringField(const Json &o, const char *key, const std::string &path,
                   std::string &out, bool required) {
  Json::const_iterator it;
  bool present = false;
  if (Status s = field(o, key, path, required, it, present); !s || !present)
    return s;
  return string(*it, join(path, key), out);
}

} // namespace hccl::sched::jsonread
