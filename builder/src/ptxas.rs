//! Reads `ptxas -v`: registers, stack frame and spills per function (what `cargo xtask ptx`
//! prints and what the PTX tests require to be zero).

/// One function's figures from `ptxas -v`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionUsage {
    /// The function's name.
    pub name: String,
    /// Whether it is a kernel (`.entry`).
    pub entry: bool,
    /// Registers per thread (`None` where ptxas printed none).
    pub registers: Option<u32>,
    /// Bytes of stack frame.
    pub stack_frame: u32,
    /// Bytes of spill stores and loads.
    pub spill_stores: u32,
    pub spill_loads: u32,
}

/// Every function `ptxas -v` reports on, in order. The report looks like
///
/// ```text
/// ptxas info    : Compiling entry function 'k' for 'sm_90'
/// ptxas info    : Function properties for k
///     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
/// ptxas info    : Used 12 registers, used 0 barriers, 360 bytes cmem[0]
/// ```
pub fn parse_verbose(report: &str) -> Vec<FunctionUsage> {
    let mut out: Vec<FunctionUsage> = Vec::new();
    let mut entry = String::new();
    let mut props = String::new();
    let quoted = |s: &str| s.split('\'').nth(1).unwrap_or_default().to_owned();
    for line in report.lines() {
        if line.contains("Compiling entry function '") {
            entry = quoted(line);
        } else if let Some(rest) = line.split("Function properties for ").nth(1) {
            props = rest.trim().to_owned();
        } else if line.contains("bytes stack frame") {
            let n: Vec<u32> = line
                .split(',')
                .map(|part| {
                    part.split_whitespace()
                        .next()
                        .and_then(|w| w.parse().ok())
                        .unwrap_or(u32::MAX)
                })
                .collect();
            out.push(FunctionUsage {
                entry: props == entry,
                name: std::mem::take(&mut props),
                registers: None,
                stack_frame: n.first().copied().unwrap_or(u32::MAX),
                spill_stores: n.get(1).copied().unwrap_or(u32::MAX),
                spill_loads: n.get(2).copied().unwrap_or(u32::MAX),
            });
        } else if let Some(regs) = line.split("Used ").nth(1) {
            let regs = regs.split_whitespace().next().and_then(|r| r.parse().ok());
            if let Some(f) = out.iter_mut().rev().find(|f| f.name == entry) {
                f.registers = regs;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_registers_stack_and_spills() {
        let report = "ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'a' for 'sm_90'
ptxas info    : Function properties for a
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 0 barriers, 360 bytes cmem[0]
ptxas info    : Compiling entry function 'b' for 'sm_90'
ptxas info    : Function properties for b
    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 368 bytes cmem[0]
";
        let f = parse_verbose(report);
        assert_eq!(f.len(), 2);
        assert_eq!(
            f[0],
            FunctionUsage {
                name: "a".into(),
                entry: true,
                registers: Some(12),
                ..Default::default()
            }
        );
        assert_eq!(
            (
                f[1].registers,
                f[1].stack_frame,
                f[1].spill_stores,
                f[1].spill_loads
            ),
            (Some(255), 16, 8, 4)
        );
    }
}
