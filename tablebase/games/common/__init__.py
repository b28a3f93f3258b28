"""Machinery shared by game families: the vector kernel protocol and array helpers
(:mod:`.kernels`), the dense index protocol and its compiled passes (:mod:`.dense_index`,
:mod:`.dense_kernels`, :mod:`.dense_passes`), whether numba's cache holds a kernel
(:mod:`.compiled`) and games of moving tokens (:mod:`.tokens`)."""
