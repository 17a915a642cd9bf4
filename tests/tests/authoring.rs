//! PTX checks of what kernel authors rely on, no GPU needed:
//!
//! - no library or test kernel has a `bar.sync`/`barrier.sync` that only some threads can
//!   reach (a conservative uniformity analysis, described on [`barrier_under_divergent_branch`]);
//! - below sm_70 warpkit offers no warp `.sync` instruction: the library built for sm_60 has
//!   no kernel and no such instruction, and the legacy test kernel only the non-`.sync` `shfl`;
//! - a cubin is embedded for every target, and each is an ELF image.
//!
//! (Each instruction wrapper's own check is `ptx.rs`.)

use std::collections::{HashMap, HashSet};
use warpkit_tests::ptx::{
    LEGACY_PTX, LIBRARY_PTX, LIBRARY_PTX_CUBIN, LIBRARY_SM60_PTX, TEST_KERNELS_PTX,
};

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

/// Registers whose value may differ between the threads of a block (flow-insensitive, to a
/// fixpoint): written by an instruction that reads a divergent register or a per-thread
/// special register (`%tid`, `%laneid`, ...), that is guarded by a divergent predicate, or
/// whose result differs per thread by nature (`atom`, `shfl`, `vote`, `match`, `redux`,
/// `activemask`). A load is divergent when its address is: a load from a uniform address is
/// taken to be uniform (true unless another thread writes that location at the same time).
fn divergent_registers<'a>(instrs: &[&Instr<'a>]) -> HashSet<&'a str> {
    let mut divergent: HashSet<&str> = HashSet::new();
    loop {
        let before = divergent.len();
        for ins in instrs {
            let op = ins.opcode;
            if op.starts_with("st.")
                || op.starts_with("bra")
                || op.starts_with("bar")
                || ins.operands.is_empty()
            {
                continue;
            }
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
                divergent.extend(regs(ins.operands[0]));
            }
        }
        if divergent.len() == before {
            return divergent;
        }
    }
}

/// A basic block: its instructions, successors (`None` = the kernel's exit), barrier.
struct Block<'a> {
    instrs: Vec<Instr<'a>>,
    succ: Vec<Option<usize>>,
    barrier: bool,
}

fn basic_blocks(body: &str) -> Vec<Block<'_>> {
    // Split at labels and after branches/returns.
    let mut raw: Vec<(Option<&str>, Vec<Instr>)> = vec![(None, Vec::new())];
    for line in body.lines() {
        let t = line.split("//").next().unwrap_or("").trim();
        if let Some(label) = t.strip_suffix(':').filter(|l| l.starts_with('$')) {
            raw.push((Some(label), Vec::new()));
            continue;
        }
        let Some(ins) = parse(line) else { continue };
        let ends = ins.opcode.starts_with("bra")
            || ins.opcode == "ret"
            || ins.opcode == "exit"
            || ins.opcode == "trap";
        raw.last_mut().unwrap().1.push(ins);
        if ends {
            raw.push((None, Vec::new()));
        }
    }
    let index: HashMap<&str, usize> = raw
        .iter()
        .enumerate()
        .filter_map(|(i, (l, _))| l.map(|l| (l, i)))
        .collect();
    let n = raw.len();
    raw.into_iter()
        .enumerate()
        .map(|(i, (_, instrs))| {
            let next = if i + 1 < n { Some(i + 1) } else { None };
            let succ = match instrs.last() {
                Some(last) if last.opcode.starts_with("bra") => {
                    let target = Some(index[last.operands[0]]);
                    if last.guard.is_some() {
                        vec![target, next]
                    } else {
                        vec![target]
                    }
                }
                Some(last) if ["ret", "exit", "trap"].contains(&last.opcode) => {
                    if last.guard.is_some() {
                        vec![None, next]
                    } else {
                        vec![None]
                    }
                }
                _ => vec![next],
            };
            let barrier = instrs
                .iter()
                .any(|i| i.opcode.starts_with("bar.sync") || i.opcode.starts_with("barrier.sync"));
            Block {
                instrs,
                succ,
                barrier,
            }
        })
        .collect()
}

/// A `bar.sync`/`barrier.sync` that only some threads of a block may reach: one in a basic
/// block that is control-dependent on a conditional branch whose predicate may differ between
/// threads ([`divergent_registers`]). Control dependence from post-dominators: barrier block
/// `B` depends on branch block `X` when `B` post-dominates a successor of `X` but does not
/// strictly post-dominate `X`. This covers loops too: a barrier in a loop whose exit condition differs between
/// threads depends on that exit branch. A branch one of whose arms reaches no barrier at all
/// (the threads taking it only exit) is allowed: exited threads do not take part in
/// `bar.sync` (sm_70+).
///
/// Limits: uniformity is decided per register over the whole kernel (a register that is
/// uniform in one place and not in another is divergent everywhere: errs towards reporting);
/// loads from a uniform address are taken to be uniform; indirect branches (`brx.idx`) and
/// calls are not followed. Returns a description of the first finding.
fn barrier_under_divergent_branch(body: &str) -> Option<String> {
    let blocks = basic_blocks(body);
    let n = blocks.len();
    let flat: Vec<&Instr> = blocks.iter().flat_map(|b| b.instrs.iter()).collect();
    let divergent = divergent_registers(&flat);
    // Post-dominator sets as bit vectors; bit n is the exit.
    let words = (n + 1).div_ceil(64);
    let full = vec![!0u64; words];
    let mut pdom = vec![full.clone(); n];
    let set = |v: &mut Vec<u64>, i: usize| v[i / 64] |= 1 << (i % 64);
    let has = |v: &Vec<u64>, i: usize| v[i / 64] >> (i % 64) & 1 == 1;
    let mut exit = vec![0u64; words];
    set(&mut exit, n);
    loop {
        let mut changed = false;
        for b in (0..n).rev() {
            let mut acc = full.clone();
            for s in &blocks[b].succ {
                let other = match s {
                    Some(s) => &pdom[*s],
                    None => &exit,
                };
                for (a, o) in acc.iter_mut().zip(other) {
                    *a &= o;
                }
            }
            set(&mut acc, b);
            if acc != pdom[b] {
                pdom[b] = acc;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    // Which blocks can reach a barrier.
    let mut reaches = blocks.iter().map(|b| b.barrier).collect::<Vec<_>>();
    loop {
        let mut changed = false;
        for b in 0..n {
            if !reaches[b] && blocks[b].succ.iter().flatten().any(|&s| reaches[s]) {
                reaches[b] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for (x, xb) in blocks.iter().enumerate() {
        let Some(last) = xb.instrs.last() else {
            continue;
        };
        let Some(g) = last.guard else { continue };
        if !last.opcode.starts_with("bra") || !divergent.contains(g) {
            continue;
        }
        if xb.succ.iter().any(|s| !s.is_some_and(|s| reaches[s])) {
            continue; // one arm only exits
        }
        for (b, bb) in blocks.iter().enumerate() {
            if !bb.barrier || (b != x && has(&pdom[x], b)) {
                continue;
            }
            if xb.succ.iter().flatten().any(|&s| has(&pdom[s], b)) {
                return Some(format!(
                    "a barrier (block {b}) is reached or not depending on `@{g} bra {}` (block {x}), and {g} may differ between threads",
                    last.operands[0]
                ));
            }
        }
    }
    None
}

#[test]
fn the_divergence_check_sees_a_barrier_some_threads_skip() {
    let bad = ".entry k(\n{\n\tmov.u32 %r1, %tid.x;\n\tsetp.ne.s32 %p1, %r1, 0;\n\t@%p1 bra $L__BB0_2;\n\tbar.sync 0;\n$L__BB0_2:\n\tbar.sync 0;\n\tret;\n}\n";
    assert!(barrier_under_divergent_branch(bad).is_some());
    // The same shape on a parameter (uniform) is fine, and so is a barrier after the label.
    let uniform = bad.replace("mov.u32 %r1, %tid.x", "ld.param.u32 %r1, [k_param_0]");
    assert!(barrier_under_divergent_branch(&uniform).is_none());
    let after = ".entry k(\n{\n\tmov.u32 %r1, %tid.x;\n\tsetp.ne.s32 %p1, %r1, 0;\n\t@%p1 bra $L__BB0_2;\n\tst.u32 [%rd1], %r1;\n$L__BB0_2:\n\tbar.sync 0;\n\tret;\n}\n";
    assert!(barrier_under_divergent_branch(after).is_none());
    // Taint flows through arithmetic and loads from divergent addresses.
    let via_load = ".entry k(\n{\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\tld.global.u32 %r2, [%rd3];\n\tsetp.eq.s32 %p2, %r2, 7;\n\t@%p2 bra $L__BB0_9;\n\tbarrier.sync 0;\n$L__BB0_9:\n\tbarrier.sync 0;\n\tret;\n}\n";
    assert!(barrier_under_divergent_branch(via_load).is_some());
    // A barrier in a loop whose trip count is per thread; and the same loop on a parameter.
    let divergent_loop = ".entry k(\n{\n\tmov.u32 %r1, %tid.x;\n$L__BB0_1:\n\tbar.sync 0;\n\tadd.s32 %r1, %r1, 1;\n\tsetp.lt.u32 %p1, %r1, 100;\n\t@%p1 bra $L__BB0_1;\n\tbar.sync 0;\n\tret;\n}\n";
    assert!(barrier_under_divergent_branch(divergent_loop).is_some());
    let uniform_loop =
        divergent_loop.replace("mov.u32 %r1, %tid.x", "ld.param.u32 %r1, [k_param_0]");
    assert!(barrier_under_divergent_branch(&uniform_loop).is_none());
    // An early exit of some threads before a barrier is allowed.
    let early_exit = ".entry k(\n{\n\tmov.u32 %r1, %tid.x;\n\tsetp.ge.u32 %p1, %r1, 100;\n\t@%p1 bra $L__BB0_2;\n\tbar.sync 0;\n\tret;\n$L__BB0_2:\n\tret;\n}\n";
    assert!(barrier_under_divergent_branch(early_exit).is_none());
}

#[test]
fn no_library_barrier_is_reachable_by_only_some_threads() {
    let mut barriers = 0;
    for &(arch, ptx) in LIBRARY_PTX.iter().chain(TEST_KERNELS_PTX) {
        for (name, body) in kernels(ptx) {
            barriers += body.matches("bar.sync").count() + body.matches("barrier.sync").count();
            if let Some(why) = barrier_under_divergent_branch(body) {
                panic!("{arch} {name}: {why}");
            }
        }
    }
    assert!(barriers > 100, "only {barriers} barriers seen");
}

/// The warp `.sync` instructions (and `bar.warp.sync`), which are undefined below sm_70 unless
/// the warp is converged.
const WARP_SYNC: [&str; 5] = [
    "shfl.sync",
    "vote.sync",
    "match.",
    "redux.sync",
    "bar.warp.sync",
];

#[test]
fn below_sm70_warpkit_offers_no_warp_sync_instruction() {
    for &(arch, ptx) in LIBRARY_SM60_PTX {
        assert!(ptx.contains(".target sm_60"), "{arch}: not sm_60 PTX");
        assert!(
            kernels(ptx).is_empty(),
            "{arch}: the library has kernels below sm_70"
        );
        for instr in WARP_SYNC {
            assert!(!ptx.contains(instr), "{arch}: `{instr}` below sm_70");
        }
    }
    for &(arch, ptx) in LEGACY_PTX {
        let bodies = kernels(ptx);
        assert_eq!(bodies.len(), 1, "{arch}: only the legacy kernel");
        for (name, body) in bodies {
            assert!(
                body.contains("shfl.up.b32"),
                "{arch} {name}: no legacy shfl"
            );
            for instr in WARP_SYNC {
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
    if LIBRARY_PTX_CUBIN.is_empty() {
        assert!(
            std::env::var_os("WARPKIT_REQUIRE_PTXAS").is_none(),
            "WARPKIT_REQUIRE_PTXAS is set but no cubins were embedded"
        );
        eprintln!("skipped: built without ptxas, no cubins");
        return;
    }
    for &(arch, _) in LIBRARY_PTX {
        let (_, cubin) = LIBRARY_PTX_CUBIN
            .iter()
            .find(|(t, _)| *t == arch)
            .unwrap_or_else(|| panic!("no cubin for {arch}"));
        assert_eq!(&cubin[..4], b"\x7fELF", "{arch}: not an ELF image");
    }
}
