//! The warp layer: algorithms over the lanes of a warp, built on [`crate::instr`].
//!
//! - [`tile`]: [`Tile<W>`], segments of `W` lanes with reduce, scans, segmented scans and
//!   broadcast for any [`ReduceOp`](crate::ops::ReduceOp) and any [`Pod`](bytemuck::Pod) value;
//! - [`shfl`]: the CUDA-style shuffles with a `width` (`__shfl_sync`, ...) and
//!   [`map_words`](shfl::map_words), which moves any value 32 bits at a time;
//! - [`redux`]: the shuffle reductions behind `redux.sync` (butterfly, masked rank tree,
//!   [`FloatRedux`](redux::FloatRedux));
//! - [`vote`], [`matching`]: the CUDA-style votes and matches (`__ballot_sync`,
//!   `__match_any_sync` for any 4- or 8-byte type).

pub mod matching;
pub mod redux;
pub mod shfl;
pub mod tile;
pub mod vote;

pub use tile::{Flags, Tile, Warp};
