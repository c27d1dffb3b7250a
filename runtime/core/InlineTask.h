//===- InlineTask.h - A stream task stored in place ------------*- C++ -*-===//
//
// A move-only `Status()` callable that keeps closures of up to kInlineBytes
// inside itself, larger ones on the heap. A host stream's queue holds these
// in a ring it allocates once, so enqueueing a collective allocates nothing:
// std::function (libstdc++ keeps only 16 bytes in place) allocated two
// closures per call on the caller's thread for the stream's thread to free
// (docs/performance.md, "Stream tasks in place"). The runtime may not use
// LLVM's unique_function (docs/architecture.md), hence this one.
//
//===----------------------------------------------------------------------===//
#ifndef HCCL_RUNTIME_CORE_INLINETASK_H
#define HCCL_RUNTIME_CORE_INLINETASK_H

#include "common/Status.h"

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace hccl::rt {

class InlineTask {
public:
  static constexpr size_t kInlineBytes = 96;

  InlineTask() = default;
  template <class F, class D = std::decay_t<F>,
            class = std::enable_if_t<!std::is_same_v<D, InlineTask>>>
  explicit InlineTask(F &&f) {
    if constexpr (fitsInline<D>()) {
      ::new (static_cast<void *>(buf_)) D(std::forward<F>(f));
      ops_ = &kInlineOps<D>;
    } else {
      ::new (static_cast<void *>(buf_)) D *(new D(std::forward<F>(f)));
      ops_ = &kHeapOps<D>;
    }
  }
  InlineTask(InlineTask &&o) noexcept { take(o); }
  InlineTask &operator=(InlineTask &&o) noexcept {
    if (this != &o) {
      reset();
      take(o);
    }
    return *this;
  }
  InlineTask(const InlineTask &) = delete;
  InlineTask &operator=(const InlineTask &) = delete;
  ~InlineTask() { reset(); }

  explicit operator bool() const { return ops_ != nullptr; }
  /// Whether the closure lives in the task (no allocation).
  bool isInline() const { return ops_ != nullptr && ops_->inlined; }
  Status operator()() { return ops_->call(buf_); }
  void reset() {
    if (ops_)
      ops_->destroy(buf_);
    ops_ = nullptr;
  }

private:
  struct Ops {
    Status (*call)(void *);
    /// Move-constructs the closure at `dst` from the one at `src` and
    /// destroys the one at `src`.
    void (*relocate)(void *dst, void *src);
    void (*destroy)(void *);
    bool inlined;
  };

  template <class D> static constexpr bool fitsInline() {
    return sizeof(D) <= kInlineBytes &&
           alignof(D) <= alignof(std::max_align_t) &&
           std::is_nothrow_move_constructible_v<D>;
  }

  template <class D>
  static constexpr Ops kInlineOps = {
      [](void *p) -> Status { return (*static_cast<D *>(p))(); },
      [](void *dst, void *src) {
        D *s = static_cast<D *>(src);
        ::new (dst) D(std::move(*s));
        s->~D();
      },
      [](void *p) { static_cast<D *>(p)->~D(); }, true};

  template <class D>
  static constexpr Ops kHeapOps = {
      [](void *p) -> Status { return (**static_cast<D **>(p))(); },
      [](void *dst, void *src) { ::new (dst) D *(*static_cast<D **>(src)); },
      [](void *p) { delete *static_cast<D **>(p); }, false};

  void take(InlineTask &o) {
    if (o.ops_) {
      o.ops_->relocate(buf_, o.buf_);
      ops_ = o.ops_;
      o.ops_ = nullptr;
    }
  }

  alignas(std::max_align_t) unsigned char buf_[kInlineBytes];
  const Ops *ops_ = nullptr;
};

} // namespace hccl::rt

#endif // HCCL_RUNTIME_CORE_INLINETASK_H
