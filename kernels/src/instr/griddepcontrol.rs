//! Programmatic dependent launch: `griddepcontrol`, how a kernel launched with the
//! programmatic-stream-serialization attribute (`cuLaunchKernelEx`,
//! `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`) overlaps its start with the end of
//! the kernel before it on the stream.
//!
//! Such a kernel may start running while the kernel before it still runs: it must execute
//! [`griddepcontrol_wait`] before its first access to memory that earlier work writes or
//! reads. Launched without the attribute, both instructions have no effect.
//!
//! CUDA guide: [Programmatic Dependent Launch and Synchronization](https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#programmatic-dependent-launch-and-synchronization).

/// `griddepcontrol.wait`: waits until every prerequisite grid of this launch has completed and
/// its memory operations are performed and visible to this grid. Returns at once when the
/// launch has no programmatic prerequisite (a kernel launched without the attribute).
///
/// PTX ISA: [`griddepcontrol`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-griddepcontrol).
/// PTX 7.8, sm_90+.
#[doc(alias = "cudaGridDependencySynchronize")]
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
#[inline(always)]
pub fn griddepcontrol_wait() {
    crate::device_only! {
        // SAFETY: waiting has no precondition. No `nomem`: memory accesses stay after it.
        unsafe { core::arch::asm!("griddepcontrol.wait;", options(nostack, preserves_flags)) };
    }
}

/// `griddepcontrol.launch_dependents`: lets the grids that depend on this one programmatically
/// be scheduled once every block of this grid has executed it or exited. Scheduling only: a
/// dependent still sees this grid's memory only after its own [`griddepcontrol_wait`]. A
/// block's later executions have no further effect.
///
/// PTX ISA: [`griddepcontrol`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-griddepcontrol).
/// PTX 7.8, sm_90+.
#[doc(alias = "cudaTriggerProgrammaticLaunchCompletion")]
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
#[inline(always)]
pub fn griddepcontrol_launch_dependents() {
    crate::device_only! {
        // SAFETY: a scheduling hint with no precondition.
        unsafe {
            core::arch::asm!("griddepcontrol.launch_dependents;", options(nostack, preserves_flags))
        };
    }
}
