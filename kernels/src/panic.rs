//! The kernel panic handler (feature `panic-handler`, on by default): prints
//! `panicked at file:line:column: message (block (x, y, z), thread (x, y, z))` through
//! `vprintf` (see [`crate::print`]) and then executes `trap`, which aborts the whole launch:
//! the host's next synchronizing call returns `CUDA_ERROR_LAUNCH_FAILED` (or
//! `ILLEGAL_INSTRUCTION`), and the context is unusable afterwards (CUDA C++ Programming Guide,
//! "Assertion", <https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#assertion>).
//! The driver flushes the `vprintf` buffer before reporting the error, so the message reaches
//! the host's stdout.
//!
//! Only kernels with a reachable panic link this code (and `core::fmt`); warpkit's own
//! kernels have no panicking path and keep zero stack (checked by the PTX tests).
//!
//! Built with the crate feature `kernels` (warpkit's own library module), the handler only
//! traps: those kernels must not carry the formatting machinery even if a panic path
//! appeared, which would show up as a stack frame in the PTX tests.

#[cfg(all(feature = "panic-handler", not(feature = "kernels")))]
#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    use crate::thread::*;
    let (b, t) = (
        (block_idx_x(), block_idx_y(), block_idx_z()),
        (thread_idx_x(), thread_idx_y(), thread_idx_z()),
    );
    match info.location() {
        Some(l) => crate::println!(
            "panicked at {}:{}:{}: {} (block ({}, {}, {}), thread ({}, {}, {}))",
            l.file(),
            l.line(),
            l.column(),
            info.message(),
            b.0,
            b.1,
            b.2,
            t.0,
            t.1,
            t.2
        ),
        None => crate::println!("panicked: {}", info.message()),
    }
    // SAFETY: `trap` aborts the kernel; it has no precondition.
    unsafe { core::arch::nvptx::trap() }
}

#[cfg(all(feature = "panic-handler", feature = "kernels"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    // SAFETY: `trap` aborts the kernel; it has no precondition.
    unsafe { core::arch::nvptx::trap() }
}
