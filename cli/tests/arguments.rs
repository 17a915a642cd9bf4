//! The command's argument checks, which run before it looks for a GPU.

use std::process::Command;

/// Runs `warpkit` with `args`; its exit status and standard error.
fn warpkit(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_warpkit"))
        .args(args)
        .output()
        .expect("run warpkit");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn conflicting_arguments_are_refused_as_usage_errors() {
    for (args, says) in [
        (&["arg-min", "--op", "max"][..], "take no --op"),
        (
            &["arg-max", "--type", "bf16", "--op", "sum"][..],
            "take no --op",
        ),
    ] {
        let (code, stderr) = warpkit(args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(stderr.contains("Usage: warpkit"), "{args:?}: {stderr}");
    }
}
