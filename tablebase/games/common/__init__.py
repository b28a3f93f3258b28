"""Machinery shared by game families: the vector kernel protocol and array helpers
(:mod:`.kernels`), the dense index protocol and its compiled passes (:mod:`.dense`,
:mod:`.dense_kernels`, :mod:`.dense_passes`) and games of moving tokens (:mod:`.tokens`)."""
