//! `print!` and `println!` for kernels, through the CUDA runtime's device `vprintf`.
//!
//! There is no allocator: the text is formatted with [`core::fmt::Write`] into a
//! [`PrintBuf`] of [`PrintBuf::CAPACITY`] bytes on the thread's stack, cut with
//! [`PrintBuf::TRUNCATED`] when longer, and handed to one `vprintf("%s", buf)` call, so the
//! output of one `println!` is never interleaved with another thread's.
//!
//! `vprintf` is declared here and stays `.extern .func vprintf` in the PTX; the CUDA driver
//! resolves it when the module is loaded (CUDA C++ Programming Guide, "Formatted Output",
//! <https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#formatted-output>). The
//! output goes to a buffer in device memory that the host prints (to its stdout) at the next
//! synchronizing call; it holds 1 MiB by default (`cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE)`)
//! and silently drops what does not fit.
//!
//! Printing costs stack (the buffer and `core::fmt`'s frames): only kernels that print carry it.

use core::fmt;

/// A fixed-size text buffer that `core::fmt` writes into, cutting what does not fit.
pub struct PrintBuf {
    buf: [u8; PrintBuf::CAPACITY],
    len: usize,
    second_start: usize,
    truncated: bool,
}

impl PrintBuf {
    /// The bytes one `print!` can hold, the terminating NUL included.
    pub const CAPACITY: usize = 256;
    /// What replaces the end of a message that did not fit.
    pub const TRUNCATED: &'static str = "...[truncated]\n";

    /// An empty buffer.
    #[inline(always)]
    pub const fn new() -> PrintBuf {
        PrintBuf {
            buf: [0; PrintBuf::CAPACITY],
            len: 0,
            second_start: 0,
            truncated: false,
        }
    }

    /// The text so far (with the marker if it was cut), without the NUL.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// Ends the text so far (cut at half the capacity) with a NUL and starts a second one
    /// after it (the panic handler's file and message); returns where the second text starts. [`Self::finish`] terminates
    /// the second text and returns the first.
    #[cfg(any(
        test,
        all(
            target_arch = "nvptx64",
            feature = "panic-handler",
            not(feature = "kernels")
        )
    ))]
    pub(crate) fn start_second_text(&mut self) -> usize {
        self.len = self.len.min(Self::CAPACITY / 2);
        self.buf[self.len] = 0;
        self.len += 1;
        self.second_start = self.len;
        self.len
    }

    /// Ends the text with a NUL (and the marker when cut) and returns it as a C string.
    pub fn finish(&mut self) -> &core::ffi::CStr {
        if self.truncated {
            let m = Self::TRUNCATED.as_bytes();
            let start = (Self::CAPACITY - 1 - m.len())
                .min(self.len)
                .max(self.second_start);
            // Do not leave half a UTF-8 character before the marker.
            let mut start = start;
            while start > 0 && (self.buf[start] & 0xc0) == 0x80 {
                start -= 1;
            }
            self.buf[start..start + m.len()].copy_from_slice(m);
            self.len = start + m.len();
        }
        self.buf[self.len] = 0;
        // The text holds no NUL unless the caller formatted one; then C stops there.
        match core::ffi::CStr::from_bytes_until_nul(&self.buf[..=self.len]) {
            Ok(s) => s,
            Err(_) => c"",
        }
    }
}

impl Default for PrintBuf {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Write for PrintBuf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = Self::CAPACITY - 1 - self.len;
        let take = s.len().min(room);
        self.buf[self.len..self.len + take].copy_from_slice(&s.as_bytes()[..take]);
        self.len += take;
        if take < s.len() {
            self.truncated = true;
        }
        Ok(())
    }
}

#[cfg(target_arch = "nvptx64")]
unsafe extern "C" {
    /// The CUDA device runtime's `vprintf(format, args)`: `args` points to the arguments,
    /// each at its natural alignment.
    pub(crate) fn vprintf(format: *const u8, args: *const u8) -> i32;
}

/// Prints a finished C string with `vprintf("%s", s)`.
#[inline(never)]
pub fn print_cstr(s: &core::ffi::CStr) {
    #[cfg(target_arch = "nvptx64")]
    {
        let arg: *const core::ffi::c_char = s.as_ptr();
        // SAFETY: "%s" takes one pointer to a NUL-terminated string, which `arg` is; the
        // argument buffer holds that one 8-byte pointer.
        unsafe {
            vprintf(c"%s".as_ptr().cast(), (&raw const arg).cast());
        }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let _ = s;
        panic!("warpkit::print runs on an NVIDIA GPU only")
    }
}

/// Formats `args` into a [`PrintBuf`] and prints it (what `print!` calls).
#[inline(never)]
pub fn print_fmt(args: fmt::Arguments<'_>) {
    let mut b = PrintBuf::new();
    let _ = fmt::Write::write_fmt(&mut b, args);
    print_cstr(b.finish());
}

/// `print!` on the GPU: formats like `core::format_args!` and prints through `vprintf`, one
/// call per invocation, at most [`PrintBuf::CAPACITY`]` - 1` bytes.
#[macro_export]
macro_rules! print {
    ($($arg:tt)*) => { $crate::kernel::print::print_fmt(core::format_args!($($arg)*)) };
}

/// `println!` on the GPU: [`print!`] with a newline, in the same single `vprintf` call.
#[macro_export]
macro_rules! println {
    () => { $crate::kernel::print::print_cstr(c"\n") };
    ($($arg:tt)*) => { $crate::kernel::print::print_fmt(core::format_args!("{}\n", core::format_args!($($arg)*))) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::fmt::Write;

    #[test]
    fn short_text_is_kept_whole() {
        let mut b = PrintBuf::new();
        write!(b, "lane {} sum {:.2}", 7, 1.5f32).unwrap();
        assert_eq!(b.finish().to_str().unwrap(), "lane 7 sum 1.50");
    }

    #[test]
    fn long_text_is_cut_with_the_marker_and_stays_terminated() {
        let mut b = PrintBuf::new();
        for i in 0..100 {
            write!(b, "{i:04} ").unwrap();
        }
        let s = b.finish().to_str().unwrap();
        assert_eq!(s.len(), PrintBuf::CAPACITY - 1);
        assert!(s.ends_with(PrintBuf::TRUNCATED), "{s}");
        assert!(s.starts_with("0000 0001 "), "{s}");
    }

    #[test]
    fn two_texts_share_the_buffer_and_only_the_second_is_cut() {
        let mut b = PrintBuf::new();
        b.write_str("src/lib.rs").unwrap();
        let at = b.start_second_text();
        assert_eq!(at, "src/lib.rs".len() + 1);
        for i in 0..100 {
            write!(b, "{i:04} ").unwrap();
        }
        assert_eq!(b.finish().to_str().unwrap(), "src/lib.rs");
        let second = core::ffi::CStr::from_bytes_until_nul(&b.buf[at..]).unwrap();
        let second = second.to_str().unwrap();
        assert!(second.starts_with("0000 0001 "), "{second}");
        assert!(second.ends_with(PrintBuf::TRUNCATED), "{second}");
        assert_eq!(at + second.len(), PrintBuf::CAPACITY - 1);
    }

    #[test]
    fn the_cut_does_not_split_a_character() {
        let mut b = PrintBuf::new();
        for _ in 0..200 {
            b.write_str("é").unwrap();
        }
        let s = b.finish();
        assert!(s.to_str().is_ok(), "cut inside a character");
        assert!(s.to_str().unwrap().ends_with(PrintBuf::TRUNCATED));
    }
}
