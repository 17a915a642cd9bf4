//! PTX checks for issue 11 (kernel authoring), no GPU needed:
//!
//! - every atomic shim holds exactly its `atom` instruction, no call and no branch;
//! - no library kernel has a `bar.sync`/`barrier.sync` that only some threads can reach
//!   (a conservative uniformity analysis, described on [`barrier_under_divergent_branch`]);
//! - the sm_60 build has no warp `.sync` instruction outside the `unsafe` legacy kernels;
//! - a cubin is embedded for every target, and each is an ELF image.
//!
//! Merge note: with the layout change these move to the tests crate beside `ptx.rs`.

use std::collections::{HashMap, HashSet};
use warpkit_host::ptx::{KERNELS_PTX, KERNELS_PTX_CUBIN, LEGACY_PTX};

/// `(name, body)` of every `.entry` in `ptx`.
fn kernels(ptx: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut rest = ptx;
    while let Some(start) = rest.find(".entry ") {
        let body = &rest[start..];
        let name = body[".entry ".len()..]
            .split(|c: char| c == '(' || c.is_whitespace())
            .next()
            .unwrap();
        let end = body
            .find("// -- End function")
            .expect("LLVM marks the end of each function");
        out.push((name, &body[..end]));
        rest = &body[end..];
    }
    out
}

#[test]
fn every_atomic_wrapper_emits_its_instruction() {
    let mut checked = 0;
    for &(arch, ptx) in KERNELS_PTX {
        let bodies: HashMap<&str, &str> = kernels(ptx).into_iter().collect();
        for &(kernel, instr) in warpkit::atomic_shims::SHIMS {
            let body = bodies
                .get(kernel)
                .unwrap_or_else(|| panic!("{arch}: kernel {kernel} missing"));
            let count = body.matches(&format!("{instr} ")).count();
            assert_eq!(count, 1, "{arch} {kernel}: expected one `{instr}`:\n{body}");
            assert_eq!(
                body.matches("atom.").count(),
                1,
                "{arch} {kernel}: other atomics:\n{body}"
            );
            assert!(!body.contains("call"), "{arch} {kernel}: calls:\n{body}");
            assert!(!body.contains("bra"), "{arch} {kernel}: branches:\n{body}");
            checked += 1;
        }
    }
    assert!(checked >= 29 * 4, "only {checked} checked");
}

/// One PTX instruction: guard predicate, opcode, operands.
struct Instr<'a> {
    guard: Option<&'a str>,
    opcode: &'a str,
    operands: Vec<&'a str>,
}

fn parse(line: &str) -> Option<Instr<'_>> {
    let t = line.trim();
    let t = t.strip_suffix(';')?;
    if t.starts_with('.') || t.starts_with("//") || t.is_empty() {
        return None;
    }
    let (guard, t) = match t.strip_prefix('@') {
        Some(g) => {
            let (p, rest) = g.split_once(char::is_whitespace)?;
            (Some(p.trim_start_matches('!')), rest.trim())
        }
        None => (None, t),
    };
    let (opcode, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
    let operands = rest
        .split(',')
        .map(|o| {
            o.trim()
                .trim_matches(|c| c == '[' || c == ']' || c == '{' || c == '}')
        })
        .filter(|o| !o.is_empty())
        .collect();
    Some(Instr {
        guard,
        opcode,
        operands,
    })
}

/// Registers named in an operand (`%r1`, `%rd2+8`, `%p1|%p2`).
fn regs(operand: &str) -> Vec<&str> {
    operand
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '%' || c == '_' || c == '.'))
        .filter(|w| w.starts_with('%'))
        .collect()
}

/// Special registers whose value differs between the threads of a block.
fn per_thread_source(operand: &str) -> bool {
    [
        "%tid",
        "%laneid",
        "%lanemask",
        "%clock",
        "%globaltimer",
        "%warpid",
        "%smid",
    ]
    .iter()
    .any(|s| operand.contains(s))
}

/// The first `bar.sync`/`barrier.sync` inside the span of a forward conditional branch on a
/// predicate that may differ between the threads of a block, or `None`.
///
/// Uniformity (flow-insensitive, to a fixpoint): a register is *divergent* if an instruction
/// that writes it reads a divergent register or a per-thread special register (`%tid`,
/// `%laneid`, ...), is guarded by a divergent predicate, or is an instruction whose result
/// differs per thread by nature (`atom`, `shfl`, `vote`, `match`, `redux`, `activemask`). A
/// load is divergent when its address is (a load from a uniform address is taken to be
/// uniform: true unless another thread writes that location concurrently). Branch spans: a
/// conditional `bra` to a label *after* it covers the lines up to that label.
///
/// Limits: backward branches (loops) are not checked, so a barrier in a loop whose trip
/// count differs between threads is not caught; a load from a uniform address that another
/// thread writes at the same time is wrongly taken to be uniform; `exit` before a barrier is
/// allowed (exited threads do not take part in `bar.sync`).
fn barrier_under_divergent_branch(body: &str) -> Option<String> {
    let lines: Vec<&str> = body.lines().collect();
    let instrs: Vec<(usize, Instr)> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| parse(l).map(|p| (i, p)))
        .collect();
    let mut divergent: HashSet<&str> = HashSet::new();
    loop {
        let before = divergent.len();
        for (_, ins) in &instrs {
            let op = ins.opcode;
            if op.starts_with("st.")
                || op.starts_with("bra")
                || op.starts_with("bar")
                || ins.operands.is_empty()
            {
                continue;
            }
            let dests = regs(ins.operands[0]);
            let sources = &ins.operands[1..];
            let by_nature = ["atom", "shfl", "vote", "match", "redux", "activemask"]
                .iter()
                .any(|p| op.starts_with(p));
            let tainted = by_nature
                || ins.guard.is_some_and(|g| divergent.contains(g))
                || sources
                    .iter()
                    .any(|s| per_thread_source(s) || regs(s).iter().any(|r| divergent.contains(r)));
            if tainted {
                divergent.extend(dests);
            }
        }
        if divergent.len() == before {
            break;
        }
    }
    let label_line: HashMap<&str, usize> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| l.trim().strip_suffix(':').map(|n| (n, i)))
        .collect();
    for (i, ins) in &instrs {
        let Some(g) = ins.guard else { continue };
        if !ins.opcode.starts_with("bra") || !divergent.contains(g) {
            continue;
        }
        let target = ins.operands[0];
        let Some(&end) = label_line.get(target) else {
            continue;
        };
        if end <= *i {
            continue;
        }
        for (j, line) in lines.iter().enumerate().take(end).skip(*i + 1) {
            let t = line.trim();
            if t.starts_with("bar.sync") || t.starts_with("barrier.sync") {
                return Some(format!(
                    "line {j}: `{t}` is skipped by `{}` (line {i}) for the threads where {g} holds",
                    lines[*i].trim()
                ));
            }
        }
    }
    None
}

#[test]
fn the_divergence_check_sees_a_barrier_some_threads_skip() {
    let bad = ".entry k(\n{\n\tmov.u32 %r1, %tid.x;\n\tsetp.ne.s32 %p1, %r1, 0;\n\t@%p1 bra $L__BB0_2;\n\tbar.sync 0;\n$L__BB0_2:\n\tret;\n}\n";
    assert!(barrier_under_divergent_branch(bad).is_some());
    // The same shape on a parameter (uniform) is fine, and so is a barrier after the label.
    let uniform = bad.replace("mov.u32 %r1, %tid.x", "ld.param.u32 %r1, [k_param_0]");
    assert!(barrier_under_divergent_branch(&uniform).is_none());
    let after = ".entry k(\n{\n\tmov.u32 %r1, %tid.x;\n\tsetp.ne.s32 %p1, %r1, 0;\n\t@%p1 bra $L__BB0_2;\n\tst.u32 [%rd1], %r1;\n$L__BB0_2:\n\tbar.sync 0;\n\tret;\n}\n";
    assert!(barrier_under_divergent_branch(after).is_none());
    // Taint flows through arithmetic and loads from divergent addresses.
    let via_load = ".entry k(\n{\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\tld.global.u32 %r2, [%rd3];\n\tsetp.eq.s32 %p2, %r2, 7;\n\t@%p2 bra $L__BB0_9;\n\tbarrier.sync 0;\n$L__BB0_9:\n\tret;\n}\n";
    assert!(barrier_under_divergent_branch(via_load).is_some());
}

#[test]
fn no_library_barrier_is_reachable_by_only_some_threads() {
    let mut barriers = 0;
    for &(arch, ptx) in KERNELS_PTX {
        for (name, body) in kernels(ptx) {
            barriers += body.matches("bar.sync").count() + body.matches("barrier.sync").count();
            if let Some(why) = barrier_under_divergent_branch(body) {
                panic!("{arch} {name}: {why}");
            }
        }
    }
    assert!(barriers > 100, "only {barriers} barriers seen");
}

#[test]
fn the_sm60_build_has_no_warp_sync_instruction_outside_the_legacy_kernels() {
    for &(arch, ptx) in LEGACY_PTX {
        for (name, body) in kernels(ptx) {
            if name.starts_with("warpkit_legacy_") {
                continue;
            }
            for instr in [
                "shfl.sync",
                "vote.sync",
                "match.",
                "redux.sync",
                "bar.warp.sync",
                "activemask",
            ] {
                assert!(
                    !body.contains(instr),
                    "{arch} {name}: `{instr}` below sm_70"
                );
            }
        }
    }
}

#[test]
fn a_cubin_is_embedded_for_every_target() {
    if KERNELS_PTX_CUBIN.is_empty() {
        assert!(
            std::env::var_os("WARPKIT_REQUIRE_PTXAS").is_none(),
            "WARPKIT_REQUIRE_PTXAS is set but no cubins were embedded"
        );
        eprintln!("skipped: built without ptxas, no cubins");
        return;
    }
    for &(arch, _) in KERNELS_PTX {
        let (_, cubin) = KERNELS_PTX_CUBIN
            .iter()
            .find(|(t, _)| *t == arch)
            .unwrap_or_else(|| panic!("no cubin for {arch}"));
        assert_eq!(&cubin[..4], b"\x7fELF", "{arch}: not an ELF image");
    }
}
