//! The results table (markdown, CSV) and a throughput plot (SVG).

use plotters::prelude::*;
use std::fmt::Write as _;
use std::path::Path;

/// One measured case.
#[derive(Clone, Debug)]
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
}

impl Row {
    pub fn bandwidth(&self, seconds: f64) -> f64 {
        self.bytes / seconds
    }
}

pub fn markdown(rows: &[Row], header: &str) -> String {
    let mut s = format!(
        "{header}\n\n| operation | type | n | time (µs) | Gelem/s | GB/s | % of limit | CUB (µs) | CUB GB/s | ours / CUB |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n"
    );
    for r in rows {
        let (cub_us, cub_bw, ratio) = match r.cub {
            Some(c) => (
                format!("{:.1}", c * 1e6),
                format!("{:.0}", r.bandwidth(c) / 1e9),
                format!("{:.2}x", c / r.ours),
            ),
            None => (String::new(), String::new(), String::new()),
        };
        let _ = writeln!(
            s,
            "| {} | {} | 2^{} | {:.1} | {:.1} | {:.0} | {:.0}% ({}) | {} | {} | {} |",
            r.algo,
            r.ty,
            r.n.trailing_zeros(),
            r.ours * 1e6,
            r.n as f64 / r.ours / 1e9,
            r.bandwidth(r.ours) / 1e9,
            100.0 * r.bandwidth(r.ours) / r.limit,
            r.limit_name,
            cub_us,
            cub_bw,
            ratio
        );
    }
    s
}

pub fn csv(rows: &[Row]) -> String {
    let mut s = String::from(
        "operation,type,n,seconds,elements_per_second,bytes_per_second,limit,limit_bytes_per_second,cub_seconds\n",
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{},{},{},{:e},{:e},{:e},{},{:e},{}",
            r.algo,
            r.ty,
            r.n,
            r.ours,
            r.n as f64 / r.ours,
            r.bandwidth(r.ours),
            r.limit_name,
            r.limit,
            r.cub.map(|c| format!("{c:e}")).unwrap_or_default()
        );
    }
    s
}

/// GB/s against log2(n), one panel per operation: ours (solid), CUB (dashed), the limit (grey).
pub fn plot(rows: &[Row], path: &Path) -> Result<(), Box<dyn std::error::Error>> {
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
        let (lo, hi) = here.iter().fold((64u32, 0u32), |(lo, hi), r| {
            let k = r.n.trailing_zeros();
            (lo.min(k), hi.max(k))
        });
        let mut chart = ChartBuilder::on(panel)
            .caption(format!("{algo}: GB/s vs log2(n)"), ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(lo as f64..hi as f64, 0.0..max_bw)?;
        chart.configure_mesh().draw()?;
        let limit = here[0].limit / 1e9;
        chart
            .draw_series(LineSeries::new(
                [(lo as f64, limit), (hi as f64, limit)],
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
                .map(|r| (r.n.trailing_zeros() as f64, r.bandwidth(r.ours) / 1e9))
                .collect();
            chart
                .draw_series(LineSeries::new(ours, color.stroke_width(2)))?
                .label(format!("warpkit {ty}"))
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2))
                });
            let cub: Vec<(f64, f64)> = series
                .iter()
                .filter_map(|r| {
                    r.cub
                        .map(|c| (r.n.trailing_zeros() as f64, r.bandwidth(c) / 1e9))
                })
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

/// Reads rows back from [`csv`]'s output (for redrawing a plot without a GPU).
pub fn parse_csv(text: &str) -> Result<Vec<Row>, String> {
    const TYPES: [&str; 6] = ["u32", "i32", "f32", "u64", "i64", "f64"];
    const LIMITS: [&str; 2] = ["read", "copy"];
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let num = |i: usize| {
                f.get(i)
                    .and_then(|v| v.parse::<f64>().ok())
                    .ok_or(format!("bad field {i} in `{line}`"))
            };
            let ty = TYPES
                .into_iter()
                .find(|t| f.get(1) == Some(t))
                .ok_or(format!("bad type in `{line}`"))?;
            let limit_name = LIMITS
                .into_iter()
                .find(|t| f.get(6) == Some(t))
                .ok_or(format!("bad limit in `{line}`"))?;
            let (seconds, bytes_per_second) = (num(3)?, num(5)?);
            Ok(Row {
                algo: f[0].to_owned(),
                ty,
                n: num(2)? as usize,
                bytes: seconds * bytes_per_second,
                ours: seconds,
                cub: f.get(8).and_then(|v| v.parse().ok()),
                limit: num(7)?,
                limit_name,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_round_trips() {
        let rows = vec![Row {
            algo: "reduce_sum".into(),
            ty: "f32",
            n: 1 << 20,
            bytes: 4.0 * (1 << 20) as f64,
            ours: 5e-6,
            cub: Some(6e-6),
            limit: 4.4e12,
            limit_name: "read",
        }];
        let back = parse_csv(&csv(&rows)).unwrap();
        assert_eq!(back.len(), 1);
        assert_eq!(
            (back[0].algo.as_str(), back[0].ty, back[0].n),
            ("reduce_sum", "f32", 1 << 20)
        );
        assert!((back[0].bytes - rows[0].bytes).abs() < 1.0);
        assert_eq!(back[0].cub, Some(6e-6));
        assert!(markdown(&back, "h").contains("| reduce_sum | f32 | 2^20 |"));
    }
}
