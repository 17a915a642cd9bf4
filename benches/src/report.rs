//! The results table (markdown, CSV) and a throughput plot (SVG).

use crate::pairs::{Comparison, L2};
use plotters::prelude::*;
use std::fmt::Write as _;
use std::path::Path;

/// One measured case. Times are seconds per run: medians of the paired samples when the row
/// comes from [`Row::from_comparison`], with the 10th-90th percentiles beside them.
#[derive(Clone, Debug, Default)]
pub struct Row {
    pub algo: String,
    pub ty: &'static str,
    pub n: usize,
    /// Bytes the operation must move at least (input read once, output written once).
    pub bytes: f64,
    pub ours: f64,
    pub cub: Option<f64>,
    /// The matching limit: read bandwidth for reductions, copy bandwidth for scans (bytes/s).
    pub limit: f64,
    pub limit_name: &'static str,
    /// Warm or cold L2 before each run.
    pub l2: L2,
    /// 10th and 90th percentiles of our samples.
    pub ours_spread: Option<(f64, f64)>,
    pub cub_spread: Option<(f64, f64)>,
    /// Median over pairs of `CUB time / our time` (above 1: ours is faster).
    pub pair_ratio: Option<f64>,
}

impl Row {
    pub fn bandwidth(&self, seconds: f64) -> f64 {
        self.bytes / seconds
    }

    /// A row from a paired measurement.
    pub fn from_comparison(
        algo: &str,
        ty: &'static str,
        n: usize,
        bytes: f64,
        c: &Comparison,
        limit: f64,
        limit_name: &'static str,
    ) -> Row {
        let (ours, cub) = (c.ours(), c.cub());
        Row {
            algo: algo.into(),
            ty,
            n,
            bytes,
            ours: ours.median,
            cub: Some(cub.median),
            limit,
            limit_name,
            l2: c.l2,
            ours_spread: Some((ours.p10, ours.p90)),
            cub_spread: Some((cub.p10, cub.p90)),
            pair_ratio: Some(c.ratio()),
        }
    }

    /// CUB time over ours: the median pair ratio, or the ratio of the medians for unpaired rows.
    pub fn speedup(&self) -> Option<f64> {
        self.pair_ratio.or(self.cub.map(|c| c / self.ours))
    }
}

fn us_range(s: Option<(f64, f64)>) -> String {
    s.map(|(a, b)| format!("{:.1}-{:.1}", a * 1e6, b * 1e6))
        .unwrap_or_default()
}

/// Per row: the median time, the 10th-90th percentile range, throughput against the limit,
/// CUB's median and range, and the speed-up (median over pairs of CUB time / our time).
pub fn markdown(rows: &[Row], header: &str) -> String {
    let mut s = format!(
        "{header}\n\n| operation | type | n | L2 | time (µs) | p10-p90 (µs) | Gelem/s | GB/s | % of limit | CUB (µs) | CUB p10-p90 (µs) | CUB GB/s | CUB / ours (paired) |\n|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    );
    for r in rows {
        let (cub_us, cub_bw) = match r.cub {
            Some(c) => (
                format!("{:.1}", c * 1e6),
                format!("{:.0}", r.bandwidth(c) / 1e9),
            ),
            None => (String::new(), String::new()),
        };
        let ratio = r.speedup().map(|x| format!("{x:.2}x")).unwrap_or_default();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {:.1} | {} | {:.1} | {:.0} | {:.0}% ({}) | {} | {} | {} | {} |",
            r.algo,
            r.ty,
            size_label(r.n),
            r.l2.name(),
            r.ours * 1e6,
            us_range(r.ours_spread),
            r.n as f64 / r.ours / 1e9,
            r.bandwidth(r.ours) / 1e9,
            100.0 * r.bandwidth(r.ours) / r.limit,
            r.limit_name,
            cub_us,
            us_range(r.cub_spread),
            cub_bw,
            ratio
        );
    }
    s
}

const CSV_HEADER: &str = "operation,type,n,l2,seconds,elements_per_second,bytes_per_second,limit,limit_bytes_per_second,cub_seconds,seconds_p10,seconds_p90,cub_seconds_p10,cub_seconds_p90,pair_ratio_median";

pub fn csv(rows: &[Row]) -> String {
    let opt = |v: Option<f64>| v.map(|x| format!("{x:e}")).unwrap_or_default();
    let mut s = format!("{CSV_HEADER}\n");
    for r in rows {
        let _ = writeln!(
            s,
            "{},{},{},{},{:e},{:e},{:e},{},{:e},{},{},{},{},{},{}",
            r.algo,
            r.ty,
            r.n,
            r.l2.name(),
            r.ours,
            r.n as f64 / r.ours,
            r.bandwidth(r.ours),
            r.limit_name,
            r.limit,
            opt(r.cub),
            opt(r.ours_spread.map(|s| s.0)),
            opt(r.ours_spread.map(|s| s.1)),
            opt(r.cub_spread.map(|s| s.0)),
            opt(r.cub_spread.map(|s| s.1)),
            opt(r.pair_ratio),
        );
    }
    s
}

/// `2^k` for a power of two, else the distance from the nearest one (`2^24-1`, `2^20+3`).
pub fn size_label(n: usize) -> String {
    if n.is_power_of_two() {
        return format!("2^{}", n.trailing_zeros());
    }
    let k = (n as f64).log2().round() as u32;
    let power = 1usize << k;
    if n > power {
        format!("2^{k}+{}", n - power)
    } else {
        format!("2^{k}-{}", power - n)
    }
}

/// One `--sizes` entry: `K` is 2^K items (K from 1 to 31), `K-D` and `K+D` are 2^K - D and
/// 2^K + D (at least 1, at most 2^31).
pub fn parse_size(size: &str) -> Result<usize, String> {
    let bad = || format!("--sizes: `{size}` is not K, K-D or K+D (2^K items, K from 1 to 31, ± D)");
    let (k, delta) = match size.find(['-', '+']) {
        Some(at) => {
            let d: i64 = size[at + 1..].parse().map_err(|_| bad())?;
            (&size[..at], if &size[at..at + 1] == "-" { -d } else { d })
        }
        None => (size, 0),
    };
    let k: u32 = k
        .parse()
        .ok()
        .filter(|k| (1..=31).contains(k))
        .ok_or_else(bad)?;
    let n = (1i64 << k) + delta;
    if (1..=1 << 31).contains(&n) {
        Ok(n as usize)
    } else {
        Err(bad())
    }
}

/// GB/s against log2(n), one panel per operation: ours (lines), CUB (dots), the limit (grey).
/// Warm-L2 rows only (the cold ones are in the tables).
pub fn plot(rows: &[Row], path: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let warm: Vec<Row> = rows.iter().filter(|r| r.l2 == L2::Warm).cloned().collect();
    let rows = &warm[..];
    if rows.is_empty() {
        return Err("no warm rows to plot".into());
    }
    let mut algos: Vec<&str> = Vec::new();
    for r in rows {
        if !algos.contains(&r.algo.as_str()) {
            algos.push(&r.algo);
        }
    }
    let root =
        SVGBackend::new(path, (1400, 420 * algos.len().div_ceil(2) as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let panels = root.split_evenly((algos.len().div_ceil(2), 2));
    let colors = [RED, BLUE, GREEN, MAGENTA, CYAN, BLACK];
    for (panel, algo) in panels.iter().zip(&algos) {
        let here: Vec<&Row> = rows.iter().filter(|r| r.algo == *algo).collect();
        let max_bw = here
            .iter()
            .map(|r| r.limit.max(r.bandwidth(r.ours)))
            .fold(0.0, f64::max)
            / 1e9
            * 1.1;
        let (lo, hi) = here.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), r| {
            let k = (r.n as f64).log2();
            (lo.min(k), hi.max(k))
        });
        let mut chart = ChartBuilder::on(panel)
            .caption(format!("{algo}: GB/s vs log2(n)"), ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(lo..hi, 0.0..max_bw)?;
        chart.configure_mesh().draw()?;
        let limit = here[0].limit / 1e9;
        chart
            .draw_series(LineSeries::new(
                [(lo, limit), (hi, limit)],
                &RGBColor(150, 150, 150),
            ))?
            .label(format!("{} limit", here[0].limit_name))
            .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], RGBColor(150, 150, 150)));
        let mut types: Vec<&str> = here.iter().map(|r| r.ty).collect();
        types.sort();
        types.dedup();
        for (ty, color) in types.iter().zip(colors) {
            let series: Vec<&&Row> = here.iter().filter(|r| r.ty == *ty).collect();
            let ours: Vec<(f64, f64)> = series
                .iter()
                .map(|r| ((r.n as f64).log2(), r.bandwidth(r.ours) / 1e9))
                .collect();
            chart
                .draw_series(LineSeries::new(ours, color.stroke_width(2)))?
                .label(format!("warpkit {ty}"))
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2))
                });
            let cub: Vec<(f64, f64)> = series
                .iter()
                .filter_map(|r| r.cub.map(|c| ((r.n as f64).log2(), r.bandwidth(c) / 1e9)))
                .collect();
            if !cub.is_empty() {
                chart
                    .draw_series(
                        cub.iter()
                            .map(|&(x, y)| Circle::new((x, y), 4, color.filled())),
                    )?
                    .label(format!("CUB {ty}"))
                    .legend(move |(x, y)| Circle::new((x + 10, y), 4, color.filled()));
            }
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(())
}

/// The rows as JSON: `{"meta": {..}, "rows": [{..}, ..]}`, times in seconds, `null` where a
/// figure is missing (written by hand: the strings here need no escaping but quotes and
/// backslashes, which are escaped).
pub fn json(rows: &[Row], meta: &[(&str, String)]) -> String {
    let text = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
    let num = |x: f64| {
        if x.is_finite() {
            format!("{x:e}")
        } else {
            "null".into()
        }
    };
    let opt = |v: Option<f64>| v.map(num).unwrap_or_else(|| "null".into());
    let mut s = String::from("{\n  \"meta\": {");
    for (i, (k, v)) in meta.iter().enumerate() {
        let sep = if i == 0 { "" } else { "," };
        let _ = write!(s, "{sep}\n    {}: {}", text(k), text(v));
    }
    s += "\n  },\n  \"rows\": [";
    for (i, r) in rows.iter().enumerate() {
        let sep = if i == 0 { "" } else { "," };
        let pct = |t: f64| 100.0 * r.bandwidth(t) / r.limit;
        let _ = write!(
            s,
            "{sep}\n    {{\"operation\": {}, \"type\": {}, \"n\": {}, \"l2\": {}, \"bytes\": {}, \
             \"seconds\": {}, \"seconds_p10\": {}, \"seconds_p90\": {}, \"bytes_per_second\": {}, \
             \"percent_of_limit\": {}, \"cub_seconds\": {}, \"cub_seconds_p10\": {}, \
             \"cub_seconds_p90\": {}, \"cub_bytes_per_second\": {}, \"cub_percent_of_limit\": {}, \
             \"pair_ratio_median\": {}, \"limit\": {}, \"limit_bytes_per_second\": {}}}",
            text(&r.algo),
            text(r.ty),
            r.n,
            text(r.l2.name()),
            num(r.bytes),
            num(r.ours),
            opt(r.ours_spread.map(|s| s.0)),
            opt(r.ours_spread.map(|s| s.1)),
            num(r.bandwidth(r.ours)),
            num(pct(r.ours)),
            opt(r.cub),
            opt(r.cub_spread.map(|s| s.0)),
            opt(r.cub_spread.map(|s| s.1)),
            opt(r.cub.map(|c| r.bandwidth(c))),
            opt(r.cub.map(pct)),
            opt(r.pair_ratio),
            text(r.limit_name),
            num(r.limit),
        );
    }
    s += "\n  ]\n}\n";
    s
}

/// A bar chart (hand-written SVG): per row, the percentage of its bandwidth limit (read for
/// reductions, copy for scans) that warpkit (blue) and CUB (orange) reach, with a line at
/// 100%.
pub fn percent_bars_svg(rows: &[Row], title: &str) -> String {
    let (label_w, bar_w, row_h, top) = (260.0, 600.0, 34.0, 60.0);
    let most = rows
        .iter()
        .flat_map(|r| {
            let p = |t: f64| 100.0 * r.bandwidth(t) / r.limit;
            [Some(p(r.ours)), r.cub.map(p)]
        })
        .flatten()
        .filter(|p| p.is_finite())
        .fold(100.0f64, f64::max)
        .min(400.0);
    let scale = bar_w / (most * 1.05);
    let height = top + row_h * rows.len() as f64 + 40.0;
    let width = label_w + bar_w + 140.0;
    let esc = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"10\" y=\"20\" font-size=\"15\">{}</text>\n\
         <rect x=\"10\" y=\"32\" width=\"12\" height=\"10\" fill=\"#1f77b4\"/>\
         <text x=\"26\" y=\"41\">warpkit</text>\n\
         <rect x=\"90\" y=\"32\" width=\"12\" height=\"10\" fill=\"#ff7f0e\"/>\
         <text x=\"106\" y=\"41\">CUB</text>\n",
        esc(title)
    );
    for (i, r) in rows.iter().enumerate() {
        let y = top + row_h * i as f64;
        let label = format!(
            "{} {} {} ({}, {})",
            r.algo,
            r.ty,
            size_label(r.n),
            r.limit_name,
            r.l2.name()
        );
        let _ = writeln!(
            s,
            "<text x=\"{:.0}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            label_w - 8.0,
            y + row_h / 2.0 + 4.0,
            esc(&label)
        );
        let bars = [(Some(r.ours), "#1f77b4", 0.0), (r.cub, "#ff7f0e", 1.0)];
        for (t, color, k) in bars {
            let Some(t) = t else { continue };
            let pct = 100.0 * r.bandwidth(t) / r.limit;
            let w = (pct.clamp(0.0, most) * scale).max(0.5);
            let by = y + 3.0 + k * 14.0;
            let _ = writeln!(
                s,
                "<rect x=\"{label_w:.0}\" y=\"{by:.1}\" width=\"{w:.1}\" height=\"12\" fill=\"{color}\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\">{pct:.0}%</text>",
                label_w + w + 4.0,
                by + 10.0
            );
        }
    }
    let x100 = label_w + 100.0 * scale;
    let _ = writeln!(
        s,
        "<line x1=\"{x100:.1}\" y1=\"{:.0}\" x2=\"{x100:.1}\" y2=\"{:.0}\" stroke=\"#888\" \
         stroke-dasharray=\"4 3\"/><text x=\"{x100:.1}\" y=\"{:.0}\" text-anchor=\"middle\" \
         fill=\"#555\">100% of limit</text>",
        top - 4.0,
        height - 30.0,
        height - 14.0
    );
    s += "</svg>\n";
    s
}

/// Reads rows back from [`csv`]'s output (for redrawing a plot without a GPU). Columns are
/// found by name, so CSVs written before the paired columns existed still load (as warm,
/// unpaired rows).
pub fn parse_csv(text: &str) -> Result<Vec<Row>, String> {
    const TYPES: [&str; 8] = ["u32", "i32", "f32", "u64", "i64", "f64", "f16", "bf16"];
    const LIMITS: [&str; 2] = ["read", "copy"];
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().ok_or("empty CSV")?.split(',').collect();
    let col = |name: &str| header.iter().position(|h| h.trim() == name);
    let need = |name: &str| col(name).ok_or(format!("no column {name}"));
    let (c_algo, c_ty, c_n, c_s, c_bps, c_limit, c_lbps) = (
        need("operation")?,
        need("type")?,
        need("n")?,
        need("seconds")?,
        need("bytes_per_second")?,
        need("limit")?,
        need("limit_bytes_per_second")?,
    );
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let num = |i: usize| {
                f.get(i)
                    .and_then(|v| v.parse::<f64>().ok())
                    .ok_or(format!("bad field {i} in `{line}`"))
            };
            let opt = |name: &str| {
                col(name)
                    .and_then(|i| f.get(i))
                    .and_then(|v| v.parse::<f64>().ok())
            };
            let ty = TYPES
                .into_iter()
                .find(|t| f.get(c_ty) == Some(t))
                .ok_or(format!("bad type in `{line}`"))?;
            let limit_name = LIMITS
                .into_iter()
                .find(|t| f.get(c_limit) == Some(t))
                .ok_or(format!("bad limit in `{line}`"))?;
            let l2 = match col("l2").and_then(|i| f.get(i)) {
                Some(v) => L2::parse(v).ok_or(format!("bad l2 in `{line}`"))?,
                None => L2::Warm,
            };
            let pair = |a: &str, b: &str| opt(a).zip(opt(b));
            let (seconds, bytes_per_second) = (num(c_s)?, num(c_bps)?);
            Ok(Row {
                algo: f[c_algo].to_owned(),
                ty,
                n: num(c_n)? as usize,
                bytes: seconds * bytes_per_second,
                ours: seconds,
                cub: opt("cub_seconds"),
                limit: num(c_lbps)?,
                limit_name,
                l2,
                ours_spread: pair("seconds_p10", "seconds_p90"),
                cub_spread: pair("cub_seconds_p10", "cub_seconds_p90"),
                pair_ratio: opt("pair_ratio_median"),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paired_row() -> Row {
        let c = Comparison {
            l2: L2::Cold,
            iters: 1,
            ours: vec![5e-6, 4e-6, 6e-6],
            cub: vec![6e-6, 6.4e-6, 6.6e-6],
        };
        Row::from_comparison(
            "reduce_sum",
            "f32",
            1 << 20,
            4.0 * (1 << 20) as f64,
            &c,
            4.4e12,
            "read",
        )
    }

    #[test]
    fn from_comparison_takes_medians_and_the_pair_ratio() {
        let r = paired_row();
        assert_eq!((r.ours, r.cub), (5e-6, Some(6.4e-6)));
        // Pairs: 6/5 = 1.2, 6.4/4 = 1.6, 6.6/6 = 1.1: the median ratio 1.2, not 6.4/5.
        assert!((r.pair_ratio.unwrap() - 1.2).abs() < 1e-12);
        assert!((r.speedup().unwrap() - 1.2).abs() < 1e-12);
        assert_eq!(r.l2, L2::Cold);
        let (lo, hi) = r.ours_spread.unwrap();
        assert!(lo > 4e-6 && lo < 5e-6 && hi > 5e-6 && hi < 6e-6);
    }

    #[test]
    fn csv_round_trips() {
        let unpaired = Row {
            algo: "scan_inclusive_sum".into(),
            ty: "u64",
            n: 1 << 24,
            bytes: 16.0 * (1 << 24) as f64,
            ours: 7e-5,
            limit: 4.0e12,
            limit_name: "copy",
            ..Row::default()
        };
        let rows = vec![paired_row(), unpaired];
        let back = parse_csv(&csv(&rows)).unwrap();
        assert_eq!(back.len(), 2);
        for (a, b) in rows.iter().zip(&back) {
            assert_eq!(
                (a.algo.as_str(), a.ty, a.n, a.l2),
                (b.algo.as_str(), b.ty, b.n, b.l2)
            );
            assert_eq!((a.limit_name, a.limit), (b.limit_name, b.limit));
            assert!((a.bytes - b.bytes).abs() < 1.0);
            assert_eq!(a.ours, b.ours);
            assert_eq!(a.cub, b.cub);
            assert_eq!(a.ours_spread, b.ours_spread);
            assert_eq!(a.cub_spread, b.cub_spread);
            assert_eq!(a.pair_ratio, b.pair_ratio);
        }
        assert_eq!(back[1].cub, None);
        let md = markdown(&back, "h");
        assert!(
            md.contains("| reduce_sum | f32 | 2^20 | cold | 5.0 |"),
            "{md}"
        );
        assert!(md.contains("| 1.20x |"), "{md}");
        assert!(
            md.contains("| scan_inclusive_sum | u64 | 2^24 | warm |"),
            "{md}"
        );
    }

    #[test]
    fn sizes_are_labelled_from_the_nearest_power_of_two() {
        let labels: Vec<String> = [1 << 20, (1 << 24) - 1, (1 << 28) + 5, 3, 1]
            .map(size_label)
            .into();
        assert_eq!(labels, ["2^20", "2^24-1", "2^28+5", "2^2-1", "2^0"]);
        for n in [2, 1 << 20, (1 << 24) - 1, (1 << 28) + 5, 3, 1 << 31] {
            assert_eq!(parse_size(&size_label(n)[2..]), Ok(n));
        }
        for bad in ["0", "32", "31+1", "1-2", "x", "24-", "24*2"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn json_and_bars_name_every_row() {
        let rows = vec![paired_row()];
        let j = json(&rows, &[("device", "H200 \"x\"".into())]);
        assert!(j.contains("\"device\": \"H200 \\\"x\\\"\""), "{j}");
        assert!(j.contains("\"operation\": \"reduce_sum\""), "{j}");
        assert!(j.contains("\"pair_ratio_median\": 1.2e0"), "{j}");
        let svg = percent_bars_svg(&rows, "t <1>");
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("t &lt;1&gt;") && svg.contains("reduce_sum f32 2^20"));
        assert_eq!(svg.matches("<rect").count(), 1 + 2 + 2);
    }

    #[test]
    fn reads_csvs_from_before_the_paired_columns() {
        let old = "operation,type,n,seconds,elements_per_second,bytes_per_second,limit,limit_bytes_per_second,cub_seconds\n\
                   reduce_sum,u32,65536,3.1e-6,2.1e10,8.3e10,read,4.456e12,6e-6\n";
        let rows = parse_csv(old).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(
            (rows[0].l2, rows[0].cub, rows[0].pair_ratio),
            (L2::Warm, Some(6e-6), None)
        );
        assert!((rows[0].speedup().unwrap() - 6e-6 / 3.1e-6).abs() < 1e-9);
        assert!(parse_csv("operation,type\nx,u32\n").is_err());
    }

    #[test]
    fn reads_the_committed_results() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../bench-results/h200-2026-11-21.csv"
        );
        let rows = parse_csv(&std::fs::read_to_string(path).expect("read")).expect("parse");
        assert_eq!(rows.len(), 168);
        assert!(rows.iter().all(|r| r.cub.is_some() && r.l2 == L2::Warm));
    }
}
