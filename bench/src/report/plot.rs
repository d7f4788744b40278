//! SVG charts (plotters): time ratio to the baseline, and achieved bandwidth against the
//! ceilings, one horizontal bar per kernel × variant.

use super::{kernels_of, variants_of, Record, ResultFile};
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// Bar colours, cycled per variant.
const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// One bar chart: per kernel a group of bars, one per series.
struct Bars<'a> {
    title: String,
    x_desc: &'a str,
    kernels: Vec<String>,
    series: Vec<(String, Vec<Option<f64>>)>,
    /// Vertical reference lines (value, label).
    refs: Vec<(f64, String)>,
}

fn draw(path: &Path, bars: &Bars) -> Result<(), String> {
    let nseries = bars.series.len().max(1);
    // Integer y coordinates: kernel k owns rows [k*slot, (k+1)*slot), one row per series
    // plus a gap row, so labels land on whole rows.
    let slot = nseries + 1;
    let rows = (bars.kernels.len() * slot) as i32;
    let height = 120 + 14 * rows as u32;
    let max = bars
        .series
        .iter()
        .flat_map(|(_, v)| v.iter().flatten().copied())
        .chain(bars.refs.iter().map(|r| r.0))
        .fold(0.0_f64, f64::max)
        .max(1e-9)
        * 1.1;
    let root = SVGBackend::new(path, (1000, height)).into_drawing_area();
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let kernels = bars.kernels.clone();
    let label = move |y: &i32| {
        let (k, r) = ((*y as usize) / slot, (*y as usize) % slot);
        if r == slot / 2 {
            kernels.get(k).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    let mut chart = ChartBuilder::on(&root)
        .caption(&bars.title, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(210)
        .build_cartesian_2d(0.0..max, rows..0)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(rows as usize)
        .y_label_formatter(&label)
        .x_desc(bars.x_desc)
        .draw()
        .map_err(|e| err(&e))?;
    for (s, (name, values)) in bars.series.iter().enumerate() {
        let color = PALETTE[s % PALETTE.len()];
        let rects = values.iter().enumerate().filter_map(|(k, v)| {
            v.map(|v| {
                let y = (k * slot + s) as i32;
                Rectangle::new([(0.0, y), (v, y + 1)], color.filled())
            })
        });
        chart
            .draw_series(rects)
            .map_err(|e| err(&e))?
            .label(name.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
    }
    for (i, (value, name)) in bars.refs.iter().enumerate() {
        let style = BLACK.mix(0.5 + 0.2 * (i % 3) as f64).stroke_width(2);
        chart
            .draw_series(LineSeries::new([(*value, 0), (*value, rows)], style))
            .map_err(|e| err(&e))?
            .label(name.clone())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 10, y)], style));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerRight)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))
}

fn value(records: &[Record], kernel: &str, variant: &str) -> Option<Record> {
    records.iter().find(|r| r.kernel == kernel && r.variant == variant).cloned()
}

/// Writes `time_ratio.svg` and `bandwidth.svg` into `dir`; returns the paths.
pub fn write_plots(file: &ResultFile, baseline: &str, dir: &Path) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let records = &file.results;
    let kernels = kernels_of(records);
    let variants = variants_of(records);
    let mut written = Vec::new();

    let ratio_series: Vec<(String, Vec<Option<f64>>)> = variants
        .iter()
        .filter(|v| *v != baseline)
        .map(|v| {
            let vals = kernels
                .iter()
                .map(|k| {
                    let b = value(records, k, baseline)?;
                    let r = value(records, k, v)?;
                    (b.time_median_s > 0.0).then(|| r.time_median_s / b.time_median_s)
                })
                .collect();
            (v.clone(), vals)
        })
        .collect();
    let path = dir.join("time_ratio.svg");
    draw(
        &path,
        &Bars {
            title: format!("Time / {baseline} time (lower is faster)"),
            x_desc: "time ratio",
            kernels: kernels.clone(),
            series: ratio_series,
            refs: vec![(1.0, format!("{baseline} = 1"))],
        },
    )?;
    written.push(path);

    let bw_kernels: Vec<String> =
        kernels.iter().filter(|k| records.iter().any(|r| &r.kernel == *k && r.bytes_per_rep > 0.0)).cloned().collect();
    let bw_series = variants
        .iter()
        .map(|v| {
            let vals = bw_kernels.iter().map(|k| value(records, k, v).and_then(|r| r.gbs())).collect();
            (v.clone(), vals)
        })
        .collect();
    let refs = file.ceilings.iter().map(|c| (c.gbs, format!("ceiling {:.0} GB/s ({})", c.gbs, c.variants.join(",")))).collect();
    let path = dir.join("bandwidth.svg");
    draw(
        &path,
        &Bars {
            title: "Achieved bandwidth (GB/s) vs measured copy ceiling".to_owned(),
            x_desc: "GB/s",
            kernels: bw_kernels,
            series: bw_series,
            refs,
        },
    )?;
    written.push(path);
    Ok(written)
}
