"""Whether this host gives shared memory transparent huge pages when it asks
(MADV_HUGEPAGE, as the runtime does on its large shared mappings:
runtime/common/SharedMem.cpp). Read by validate_model.py, which records it
and warns when a span runs on 4 KiB pages, and by the lit configuration;
run alone it prints the mode ("none": no transparent huge pages), as
bench/runtime/compare_shm.sh records it. tools/common/HostMemory.cpp reads
the same for hccl-run."""
import os
import re

THP_DIR = "/sys/kernel/mm/transparent_hugepage"
# Modes under which memory that asks for huge pages gets them.
ALLOWING = ("advise", "always", "within_size", "force")


def _mode(path):
    try:
        with open(path) as f:
            m = re.search(r"\[([a-z_]+)\]", f.read())
    except OSError:
        return None
    return m.group(1) if m else None


def _decide(thp_dir):
    """(file, mode) of the setting that decides for PMD-sized (2 MiB on
    x86-64) shared-memory pages: the size's own shmem_enabled (Linux 6.11+)
    unless it says `inherit`, else the top-level one; (None, None) where
    neither can be read (a kernel without transparent huge pages)."""
    try:
        with open(os.path.join(thp_dir, "hpage_pmd_size")) as f:
            kib = int(f.read().strip()) // 1024
        own = os.path.join(thp_dir, f"hugepages-{kib}kB", "shmem_enabled")
        mode = _mode(own)
    except (OSError, ValueError):
        mode = None
    if mode and mode != "inherit":
        return own, mode
    top = os.path.join(thp_dir, "shmem_enabled")
    mode = _mode(top)
    return (top, mode) if mode else (None, None)


def shmem_huge_file(thp_dir=THP_DIR):
    """The file whose mode decides (_decide), None where there is none."""
    return _decide(thp_dir)[0]


def shmem_huge_mode(thp_dir=THP_DIR):
    """The mode that decides (_decide), None where there is none."""
    return _decide(thp_dir)[1]


def advice(thp_dir=THP_DIR):
    """What to tell a user whose shared memory gets 4 KiB pages: the file
    that decides, its mode and how to change it."""
    path, mode = _decide(thp_dir)
    if path is None:
        return ("this kernel has no transparent huge pages "
                "(CONFIG_TRANSPARENT_HUGEPAGE)")
    return f"{path} is [{mode}]; as root: echo advise > {path}"


if __name__ == "__main__":
    print(shmem_huge_mode() or "none")
