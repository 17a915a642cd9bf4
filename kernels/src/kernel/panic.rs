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

/// `vprintf`'s argument buffer for [`PANICKED_AT`]: each argument at its natural alignment.
#[cfg(all(feature = "panic-handler", not(feature = "kernels")))]
#[repr(C)]
struct PanickedAt {
    file: *const u8,
    line: u32,
    column: u32,
    message: *const u8,
    block: [u32; 3],
    thread: [u32; 3],
}

#[cfg(all(feature = "panic-handler", not(feature = "kernels")))]
const PANICKED_AT: &core::ffi::CStr =
    c"panicked at %s:%u:%u: %s (block (%u, %u, %u), thread (%u, %u, %u))\n";

/// The most bytes of the file path kept (its end, the informative part), so that the message
/// has at least the rest of the buffer.
#[cfg(all(feature = "panic-handler", not(feature = "kernels")))]
const FILE_BYTES: usize = 120;

// One 256-byte buffer holds the file and the formatted message (two C strings); `vprintf`
// formats the rest itself. The stack matters: `core::fmt` calls through function pointers,
// so ptxas cannot bound the frame and the kernel runs on the context's stack limit (1 KiB by
// default, `CU_LIMIT_STACK_SIZE`); a handler that overflows it reports an illegal address
// instead of the panic.
#[cfg(all(feature = "panic-handler", not(feature = "kernels")))]
#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    use crate::kernel::print::{PrintBuf, vprintf};
    use crate::kernel::*;
    use core::fmt::Write;
    let (file, line, column) = info
        .location()
        .map_or(("<unknown>", 0, 0), |l| (l.file(), l.line(), l.column()));
    let mut text = PrintBuf::new();
    let mut file_start = file.len().saturating_sub(FILE_BYTES);
    while !file.is_char_boundary(file_start) {
        file_start += 1;
    }
    let _ = text.write_str(&file[file_start..]);
    let message_at = text.start_second_text();
    let _ = write!(text, "{}", info.message());
    let file = text.finish().as_ptr().cast::<u8>();
    // SAFETY: `message_at` is within the buffer, where the NUL-terminated message starts.
    let message = unsafe { file.add(message_at) };
    let args = PanickedAt {
        file,
        line,
        column,
        message,
        block: [block_idx_x(), block_idx_y(), block_idx_z()],
        thread: [thread_idx_x(), thread_idx_y(), thread_idx_z()],
    };
    // SAFETY: the format takes exactly `PanickedAt`'s arguments, in order, the strings
    // NUL-terminated and alive until the calls return; `__assertfail` does not return (it
    // prints the message and location once more through CUDA's assertion path, then traps).
    unsafe {
        vprintf(PANICKED_AT.as_ptr().cast(), (&raw const args).cast());
        __assertfail(message, file, line, c"Rust kernel".as_ptr().cast(), 1)
    }
}

#[cfg(all(feature = "panic-handler", feature = "kernels"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    // SAFETY: `trap` aborts the kernel; it has no precondition.
    unsafe { core::arch::nvptx::trap() }
}
