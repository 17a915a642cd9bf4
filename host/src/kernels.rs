//! The library's kernel table, generated from `warpkit::library_kernels!` (the list the device
//! entry points are generated from) and named by `warpkit::kernel_name!`: every kernel is
//! resolved once, when the module loads, and launched through its (family, type, operator)
//! slot, never by a name built at run time.

use crate::element::{self, ArgElement, ArgOp, DeviceOp, Element, Limits, position, sealed};
use crate::error::Error;
use crate::module::{Kernel, Module};
#[allow(unused_imports)]
use half::{bf16, f16};
#[allow(unused_imports)]
use warpkit::ops::{ArgMax, ArgMin, Max, Min, Sum};

/// The kernel names of one element type, per family, in the list's operator order.
pub(crate) struct TypeNames {
    pub ty: &'static str,
    pub reduce: &'static [&'static str],
    pub scan: &'static [&'static str],
    pub rows_reduce: &'static [&'static str],
    pub rows_scan: &'static [&'static str],
    /// Arg-min/arg-max reduce kernels.
    pub arg: &'static [&'static str],
}

macro_rules! host_table {
    (
        types: [$(($t:ident, $i:ident)),* $(,)?],
        half_types: [$($h:ident),* $(,)?],
        ops: $ops:tt,
        arg_ops: $args:tt $(,)?
    ) => {
        /// Every element type's kernel names, in the list's order (the table's slots).
        pub(crate) const TYPES: &[TypeNames] = &[
            $(host_table!(@names $t, $ops, $args),)*
            $(host_table!(@names $h, $ops, $args),)*
        ];
        const TYPE_NAMES: &[&str] = &[$(stringify!($t),)* $(stringify!($h),)*];
        host_table!(@ops $ops, $args);

        $(
            impl sealed::Element for $t {
                const SLOT: usize = position(TYPE_NAMES, stringify!($t));
            }
            impl Element for $t {
                const NAME: &'static str = stringify!($t);
                type Accum = $t;
                fn from_accum(a: $t) -> $t { a }
                fn to_accum(self) -> $t { self }
            }
            impl sealed::ArgElement for $t {}
            impl ArgElement for $t {
                type Index = $i;
                type Padding = [u8; 0];
            }
        )*
        $(
            impl sealed::Element for $h {
                const SLOT: usize = position(TYPE_NAMES, stringify!($h));
            }
            impl Element for $h {
                const NAME: &'static str = stringify!($h);
                type Accum = f32;
                fn from_accum(a: f32) -> $h { $h::from_f32(a) }
                fn to_accum(self) -> f32 { self.to_f32() }
            }
            impl sealed::ArgElement for $h {}
            impl ArgElement for $h {
                type Index = u32;
                type Padding = [u8; 2];
            }
        )*
    };
    (@ops [$(($o:ident, $on:ident)),* $(,)?], [$(($a:ident, $an:ident)),* $(,)?]) => {
        const OP_NAMES: &[&str] = &[$(stringify!($on)),*];
        const ARG_NAMES: &[&str] = &[$(stringify!($an)),*];
        $(
            impl sealed::Op for $o {
                const INDEX: usize = position(OP_NAMES, stringify!($on));
                fn identity<A: Limits>() -> A { op_identity::<A>(stringify!($on)) }
            }
            impl DeviceOp for $o {
                const NAME: &'static str = stringify!($on);
            }
        )*
        $(
            impl sealed::ArgOp for $a {
                const INDEX: usize = position(ARG_NAMES, stringify!($an));
                const MAX: bool = element::same(stringify!($an), "argmax");
            }
            impl ArgOp for $a {
                const NAME: &'static str = stringify!($an);
            }
        )*
    };
    (@names $t:ident, [$(($o:ident, $on:ident)),* $(,)?], [$(($a:ident, $an:ident)),* $(,)?]) => {
        TypeNames {
            ty: stringify!($t),
            reduce: &[$(warpkit::kernel_name!(reduce, $on, $t)),*],
            scan: &[$(warpkit::kernel_name!(scan, $on, $t)),*],
            rows_reduce: &[$(warpkit::kernel_name!(rows_reduce, $on, $t)),*],
            rows_scan: &[$(warpkit::kernel_name!(rows_scan, $on, $t)),*],
            arg: &[$(warpkit::kernel_name!(reduce, $an, $t)),*],
        }
    };
}

warpkit::library_kernels!(host_table);

/// The identity of the operator named `op` (the names of `library_kernels!`'s `ops`).
fn op_identity<A: Limits>(op: &str) -> A {
    match op {
        "sum" => A::ZERO,
        "min" => A::HIGHEST,
        "max" => A::LOWEST,
        other => unreachable!("operator {other} has no identity rule in warpkit-host"),
    }
}

/// Every kernel name the table resolves.
pub fn names() -> impl Iterator<Item = &'static str> {
    TYPES.iter().flat_map(|t| {
        [t.reduce, t.scan, t.rows_reduce, t.rows_scan, t.arg]
            .into_iter()
            .flatten()
            .copied()
    })
}

/// The kernels of one element type.
pub(crate) struct TypeKernels {
    pub reduce: Vec<Kernel>,
    pub scan: Vec<Kernel>,
    pub rows_reduce: Vec<Kernel>,
    pub rows_scan: Vec<Kernel>,
    pub arg: Vec<Kernel>,
}

/// Every library kernel, resolved once; indexed by [`sealed::Element::SLOT`] and the operator's
/// index.
pub(crate) struct Table {
    types: Vec<TypeKernels>,
}

impl Table {
    /// Resolves every library kernel of `module` (built for `target`); with `dependent_launch`
    /// they are launched as programmatic dependents, which the caller may ask only of a target
    /// whose kernels begin with `griddepcontrol.wait` (sm_90 and newer).
    pub(crate) fn load(
        module: &Module,
        target: &str,
        dependent_launch: bool,
    ) -> Result<Table, Error> {
        let resolve = |ty: &str, names: &'static [&'static str]| {
            names
                .iter()
                .map(|&name| {
                    let kernel = module.kernel(name)?.ok_or_else(|| {
                        Error::MissingKernel(format!(
                            "the embedded PTX for {target} lacks kernel {name} ({ty} kernels), which warpkit-host's \
                             table (from warpkit::library_kernels!) expects"
                        ))
                    })?;
                    Ok(if dependent_launch {
                        // SAFETY: every library kernel starts with `warpkit::device::
                        // kernel_prologue`, which waits on this target (the caller's condition;
                        // `tests/tests/ptx.rs` checks the PTX).
                        unsafe { kernel.launched_as_dependent() }
                    } else {
                        kernel
                    })
                })
                .collect::<Result<Vec<_>, Error>>()
        };
        let types = TYPES
            .iter()
            .map(|t| {
                Ok(TypeKernels {
                    reduce: resolve(t.ty, t.reduce)?,
                    scan: resolve(t.ty, t.scan)?,
                    rows_reduce: resolve(t.ty, t.rows_reduce)?,
                    rows_scan: resolve(t.ty, t.rows_scan)?,
                    arg: resolve(t.ty, t.arg)?,
                })
            })
            .collect::<Result<_, Error>>()?;
        Ok(Table { types })
    }

    pub(crate) fn of<T: Element>(&self) -> &TypeKernels {
        &self.types[T::SLOT]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_follow_the_list() {
        assert_eq!(TYPES[<u32 as sealed::Element>::SLOT].ty, "u32");
        assert_eq!(TYPES[<f64 as sealed::Element>::SLOT].ty, "f64");
        assert_eq!(TYPES[<bf16 as sealed::Element>::SLOT].ty, "bf16");
        assert_eq!(
            TYPES[<i64 as sealed::Element>::SLOT].scan[<Max as sealed::Op>::INDEX],
            "warpkit_scan_max_i64"
        );
        assert_eq!(
            TYPES[<f32 as sealed::Element>::SLOT].arg[<ArgMax as sealed::ArgOp>::INDEX],
            "warpkit_reduce_argmax_f32"
        );
        assert_eq!(
            TYPES[<f16 as sealed::Element>::SLOT].rows_scan[<Sum as sealed::Op>::INDEX],
            "warpkit_rows_scan_sum_f16"
        );
        assert_eq!(
            TYPES[<bf16 as sealed::Element>::SLOT].arg[<ArgMin as sealed::ArgOp>::INDEX],
            "warpkit_reduce_argmin_bf16"
        );
    }

    #[test]
    fn every_operator_has_an_identity() {
        assert_eq!(crate::identity::<u32, Sum>(), 0);
        assert_eq!(crate::identity::<i32, Min>(), i32::MAX);
        // Float Min/Max: the canonical NaN, the minimum of no number (`warpkit::ops`).
        assert_eq!(
            crate::identity::<f64, Max>().to_bits(),
            0x7fff_ffff_ffff_ffff
        );
        assert_eq!(crate::identity::<f16, Min>().to_bits(), 0x7fff_ffff);
        for op in OP_NAMES {
            let _ = op_identity::<f32>(op);
        }
    }

    /// The contract test that needs no GPU: every kernel the table names is an `.entry` of
    /// every embedded PTX module, so renaming or dropping a kernel on either side fails here.
    #[test]
    fn every_table_kernel_is_an_entry_of_every_embedded_module() {
        let mut missing = Vec::new();
        for &(target, ptx) in crate::ptx::KERNELS_PTX {
            let entries: std::collections::HashSet<&str> = crate::ptx::entries(ptx).collect();
            assert!(!entries.is_empty(), "{target}: no .entry parsed");
            for name in names() {
                if !entries.contains(name) {
                    missing.push(format!("{target}: {name}"));
                }
            }
        }
        assert!(
            missing.is_empty(),
            "{} table kernels are not in the embedded PTX:\n{}",
            missing.len(),
            missing.join("\n")
        );
        assert!(names().count() >= 6 * 14 + 2 * 12);
    }
}
