//! The kernel panic handler (feature `panic-handler`, on by default): prints
//! `panicked at file:line:column: message (block (x, y, z), thread (x, y, z))` through
//! `vprintf` (see [`crate::kernel::print`]), then calls CUDA's `__assertfail` with the same message,
//! file and line (the path of CUDA C++'s `assert`, which prints
//! `file:line: Rust kernel: block: [..], thread: [..] Assertion `message` failed.`) and traps, which aborts the whole launch:
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
unsafe extern "C" {
    /// CUDA's device-side `assert` failure: prints `file:line: function: block: [..], thread:
    /// [..] Assertion `message` failed.` and traps; provided by the driver like `vprintf`.
    fn __assertfail(
        message: *const u8,
        file: *const u8,
        line: u32,
        function: *const u8,
        char_size: usize,
    ) -> !;
}

#[cfg(all(feature = "panic-handler", not(feature = "kernels")))]
#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    use crate::kernel::print::PrintBuf;
    use crate::kernel::*;
    use core::fmt::Write;
    let (b, t) = (
        (block_idx_x(), block_idx_y(), block_idx_z()),
        (thread_idx_x(), thread_idx_y(), thread_idx_z()),
    );
    let mut message = PrintBuf::new();
    let _ = write!(message, "{}", info.message());
    let mut file = PrintBuf::new();
    let line = match info.location() {
        Some(l) => {
            crate::println!(
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
            );
            let _ = file.write_str(l.file());
            l.line()
        }
        None => {
            crate::println!("panicked: {}", info.message());
            0
        }
    };
    // The same message and location once more through CUDA's own assertion path, which the
    // driver reports even if the `vprintf` buffer is not flushed after the trap; it traps.
    // SAFETY: NUL-terminated strings that live until the call, which does not return.
    unsafe {
        __assertfail(
            message.finish().as_ptr().cast(),
            file.finish().as_ptr().cast(),
            line,
            c"Rust kernel".as_ptr().cast(),
            1,
        )
    }
}

#[cfg(all(feature = "panic-handler", feature = "kernels"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    // SAFETY: `trap` aborts the kernel; it has no precondition.
    unsafe { core::arch::nvptx::trap() }
}
