//===- Module.cpp - hccl_mlir.torch._C: the backend's Python bindings -----===//
//
// Binds ProcessGroupHccl as a subclass of torch's c10d ProcessGroup (the
// pybind11 of Debian's torch, whose internals we share), Plan, and
// HcclError as hccl_mlir.torch.HcclError (a RuntimeError). Registration
// with torch.distributed is Python's job (hccl_mlir/torch/__init__.py).
//
//===----------------------------------------------------------------------===//

#include "HcclError.h"
#include "ProcessGroupHccl.h"

#include <torch/csrc/utils/pybind.h>

namespace py = pybind11;
using namespace hccl_torch;

namespace {

// Holder that drops its reference without the GIL: a group's destructor
// drains its worker, whose completions may run Python future callbacks
// (DDP comm hooks) that need the GIL (torch's own groups do the same).
template <typename T> class NoGilPtr {
public:
  NoGilPtr() = default;
  explicit NoGilPtr(T *p)
      : impl_(c10::intrusive_ptr<T>::unsafe_reclaim_from_nonowning(p)) {}
  NoGilPtr(c10::intrusive_ptr<T> p) : impl_(std::move(p)) {}
  NoGilPtr(const NoGilPtr &) = default;
  NoGilPtr &operator=(const NoGilPtr &) = default;
  ~NoGilPtr() {
    if (impl_ && PyGILState_Check()) {
      py::gil_scoped_release release;
      impl_.reset();
    }
  }
  T *get() const { return impl_.get(); }
  operator c10::intrusive_ptr<T>() const { return impl_; }

private:
  c10::intrusive_ptr<T> impl_;
};

} // namespace

PYBIND11_DECLARE_HOLDER_TYPE(T, NoGilPtr<T>, true);

PYBIND11_MODULE(_C, m) {
  m.doc() = "torch.distributed backend 'hccl' on the bundled runtime";
  // ProcessGroup and Store must be registered before we derive from them.
  py::module::import("torch.distributed");

  py::register_exception<HcclError>(m, "HcclError", PyExc_RuntimeError);

  py::class_<Plan, std::shared_ptr<Plan>>(m, "Plan")
      .def_static("load", &Plan::load, py::arg("path"),
                  "Reads and validates a plan file (docs/plan-format.md).")
      .def_static("from_string", &Plan::fromString, py::arg("json"))
      .def("program_ids", &Plan::programIds)
      .def(
          "program_info",
          [](const Plan &p, const std::string &id, uint32_t groupRank) {
            HcclPlanProgramInfo i = p.info(id, groupRank);
            py::dict d;
            d["data_type"] = static_cast<int>(i.dataType);
            d["reduce_op"] = static_cast<int>(i.op);
            d["ranks"] = i.ranks;
            d["input_bytes"] = i.inputBytes;
            d["output_bytes"] = i.outputBytes;
            return d;
          },
          py::arg("program_id"), py::arg("group_rank"),
          "HCCL data type and operator numbers, group size and this rank's "
          "buffer sizes in bytes.");

  py::class_<ProcessGroupHccl, c10d::ProcessGroup, NoGilPtr<ProcessGroupHccl>>(
      m, "ProcessGroupHCCL")
      .def(py::init([](const c10::intrusive_ptr<c10d::Store> &store, int rank,
                       int size, int32_t execTimeoutSec) {
             return NoGilPtr<ProcessGroupHccl>(
                 c10::make_intrusive<ProcessGroupHccl>(store, rank, size,
                                                       execTimeoutSec));
           }),
           py::arg("store"), py::arg("rank"), py::arg("size"),
           py::arg("exec_timeout_s") = HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET,
           py::call_guard<py::gil_scoped_release>())
      .def(py::init([](ProcessGroupHccl *parent,
                       const std::vector<int64_t> &ranks, uint64_t subCommId,
                       int rank, int32_t execTimeoutSec) {
             TORCH_CHECK_VALUE(parent != nullptr,
                               "hccl: a subgroup needs its parent group");
             return NoGilPtr<ProcessGroupHccl>(
                 c10::make_intrusive<ProcessGroupHccl>(
                     c10::intrusive_ptr<ProcessGroupHccl>::
                         unsafe_reclaim_from_nonowning(parent),
                     ranks, subCommId, rank, execTimeoutSec));
           }),
           py::arg("parent"), py::arg("ranks"), py::arg("sub_comm_id"),
           py::arg("rank"),
           py::arg("exec_timeout_s") = HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET,
           py::call_guard<py::gil_scoped_release>())
      .def("_run_plan", &ProcessGroupHccl::runPlan, py::arg("plan"),
           py::arg("program_id"), py::arg("input"), py::arg("output"),
           py::call_guard<py::gil_scoped_release>())
      .def("_run_plan_packed", &ProcessGroupHccl::runPlanPacked,
           py::arg("plan"), py::arg("program_id"), py::arg("parts"),
           py::arg("flat"), py::arg("scale"),
           py::call_guard<py::gil_scoped_release>());
}
