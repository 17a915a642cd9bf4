//! The benchmark's host-side checks split over the machine's threads. At 2^30 items a row
//! took 40-odd seconds on an H200's host (2026-11-28: 9 scan rows in 400 s), with the exact
//! scan and the three bit-for-bit comparisons of each row on one thread.

use std::ops::Range;
use std::thread;

/// Items per part, at least: smaller inputs run on one thread.
const MIN_PART: usize = 1 << 20;

/// `0..n` in consecutive parts, one per available thread (one part for small `n`; none for
/// an empty input).
pub fn parts(n: usize) -> Vec<Range<usize>> {
    let threads = thread::available_parallelism().map_or(1, |t| t.get());
    let per = n.div_ceil(threads).max(MIN_PART);
    (0..n).step_by(per).map(|s| s..(s + per).min(n)).collect()
}

/// `f` of each of [`parts`]`(n)`, on threads of their own, in the parts' order.
pub fn map<R: Send>(n: usize, f: impl Fn(Range<usize>) -> R + Sync) -> Vec<R> {
    map_parts(&parts(n), f)
}

/// `f` of each of `parts`, on threads of their own, in their order.
fn map_parts<R: Send>(parts: &[Range<usize>], f: impl Fn(Range<usize>) -> R + Sync) -> Vec<R> {
    let f = &f;
    thread::scope(|s| {
        let workers: Vec<_> = parts
            .iter()
            .map(|part| {
                let part = part.clone();
                s.spawn(move || f(part))
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a check thread panicked"))
            .collect()
    })
}

/// `f(k, part, items)` for each part `k` of `parts` (consecutive from 0, covering `out`'s
/// indices, as [`parts`] gives), `items` being that part of `out`, on threads of their own.
pub fn fill<T: Send>(
    out: &mut [T],
    parts: &[Range<usize>],
    f: impl Fn(usize, Range<usize>, &mut [T]) + Sync,
) {
    assert_eq!(parts.last().map_or(0, |p| p.end), out.len());
    let f = &f;
    thread::scope(|s| {
        let mut rest = out;
        for (k, part) in parts.iter().cloned().enumerate() {
            let (items, tail) = rest.split_at_mut(part.len());
            rest = tail;
            s.spawn(move || f(k, part, items));
        }
    });
}

/// The exact sum of `code(i)` over each of [`parts`]`(n)`, in the parts' order.
pub fn part_sums(n: usize, code: impl Fn(usize) -> i128 + Sync) -> Vec<i128> {
    sums_of_parts(&parts(n), code)
}

/// The exact sum of `code(i)` over each of `parts`, in their order.
fn sums_of_parts(parts: &[Range<usize>], code: impl Fn(usize) -> i128 + Sync) -> Vec<i128> {
    map_parts(parts, |part| part.map(&code).sum())
}

/// The exact running sums of `code(i)` over `out`'s indices: `out[i] = item(i, before, through)`,
/// with `before` the sum of the codes of the items before `i` and `through` that sum with
/// `code(i)`. Each part is summed, then scanned after the parts before it, on threads (both
/// passes over the same parts).
pub fn running_sums<T: Send>(
    out: &mut [T],
    code: impl Fn(usize) -> i128 + Sync,
    item: impl Fn(usize, i128, i128) -> T + Sync,
) {
    let parts = parts(out.len());
    let before_part: Vec<i128> = sums_of_parts(&parts, &code)
        .into_iter()
        .scan(0, |sum, part| {
            let before = *sum;
            *sum += part;
            Some(before)
        })
        .collect();
    fill(out, &parts, |k, part, items| {
        let mut sum = before_part[k];
        for (i, out) in part.zip(items) {
            let before = sum;
            sum += code(i);
            *out = item(i, before, sum);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::{MIN_PART, fill, map, parts, running_sums};

    #[test]
    fn running_sums_equal_the_sequential_ones() {
        let n = 4 * MIN_PART + 3;
        // Codes of either sign, some large, from a fixed linear congruential sequence.
        let code = |i: usize| {
            let x = (i as u64)
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 11) as i128 * if x & 1 == 0 { 1 } else { -(1 << 40) }
        };
        let mut out = vec![(0i128, 0i128); n];
        running_sums(&mut out, code, |_, before, through| (before, through));
        let mut sum = 0i128;
        for (i, &(before, through)) in out.iter().enumerate() {
            assert_eq!(before, sum, "item {i}");
            sum += code(i);
            assert_eq!(through, sum, "item {i}");
        }
    }

    #[test]
    fn parts_cover_every_index_once_in_order() {
        for n in [0, 1, MIN_PART - 1, MIN_PART, MIN_PART + 1, 5 * MIN_PART + 7] {
            let mut next = 0;
            for part in parts(n) {
                assert_eq!(part.start, next, "n = {n}");
                assert!(!part.is_empty(), "n = {n}");
                next = part.end;
            }
            assert_eq!(next, n);
        }
    }

    #[test]
    fn map_and_fill_see_every_part() {
        let n = 3 * MIN_PART + 11;
        let sums = map(n, |r| r.map(|i| i as u64).sum::<u64>());
        assert_eq!(sums.iter().sum::<u64>(), (n as u64 - 1) * n as u64 / 2);
        let mut out = vec![u64::MAX; n];
        let parts = parts(n);
        fill(&mut out, &parts, |k, r, items| {
            assert_eq!(parts[k], r);
            assert_eq!(items.len(), r.len());
            for (item, i) in items.iter_mut().zip(r) {
                *item = i as u64;
            }
        });
        assert!(out.iter().enumerate().all(|(i, &x)| x == i as u64));
    }
}
