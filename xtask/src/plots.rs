//! The benchmark's box plots (the GTR paper's Fig. 3 and 4): per format, the remaining tree
//! nodes (% of the original) and the oracle calls of each reducer over the cases, drawn with
//! `plotters` into SVG (its SVG backend only: no font or bitmap dependencies; text is left to
//! the browser's fonts).

use crate::summary::{Run, compared};
use anyhow::{Result, anyhow};
use plotters::prelude::*;

/// What a plot shows of a run.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Measure {
    /// Remaining tree nodes, % of the original (log scale).
    NodesPercent,
    /// Oracle calls (log scale).
    Calls,
}

impl Measure {
    fn value(self, r: &Run) -> Option<f64> {
        match self {
            Measure::NodesPercent => r.nodes_percent(),
            Measure::Calls => Some(r.calls as f64),
        }
    }

    fn label(self) -> &'static str {
        match self {
            Measure::NodesPercent => "tree nodes left, % of the original (log)",
            Measure::Calls => "oracle calls (log)",
        }
    }
}

/// Per format, each reducer's values: `(format, [(reducer, values)])`.
pub(crate) type Series = Vec<(String, Vec<(String, Vec<f64>)>)>;

/// The values of each (format, reducer) with at least one run whose output is still
/// interesting, formats and reducers in the order of the runs, whittle's first.
pub(crate) fn series(runs: &[Run], measure: Measure) -> Series {
    let runs = compared(runs);
    let mut out: Series = Vec::new();
    for r in runs.iter().filter(|r| r.counts()) {
        let Some(v) = measure.value(r) else { continue };
        // Zero cannot sit on a log scale; a result of zero nodes is drawn at the axis's floor.
        let v = v.max(1e-3);
        let format = match out.iter_mut().find(|(f, _)| *f == r.format) {
            Some(f) => f,
            None => {
                out.push((r.format.clone(), Vec::new()));
                out.last_mut().expect("just pushed")
            }
        };
        match format.1.iter_mut().find(|(name, _)| *name == r.reducer) {
            Some((_, values)) => values.push(v),
            None => format.1.push((r.reducer.clone(), vec![v])),
        }
    }
    for (_, reducers) in &mut out {
        reducers.sort_by_key(|(n, _)| !n.starts_with("whittle"));
    }
    out
}

/// Draws one SVG with a panel per format: a box per reducer. Returns the SVG text, or `None`
/// when there is nothing to draw.
pub(crate) fn box_plot_svg(runs: &[Run], measure: Measure, title: &str) -> Result<Option<String>> {
    let data = series(runs, measure);
    if data.is_empty() {
        return Ok(None);
    }
    let width = 900u32;
    let panel = 300u32;
    let height = 40 + panel * data.len() as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
        let (head, body) = root.split_vertically(40);
        head.titled(title, ("sans-serif", 18))
            .map_err(|e| anyhow!("{e}"))?;
        let panels = body.split_evenly((data.len(), 1));
        for ((format, reducers), area) in data.iter().zip(panels.iter()) {
            let all: Vec<f64> = reducers
                .iter()
                .flat_map(|(_, v)| v.iter().copied())
                .collect();
            let lo = all.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = all.iter().copied().fold(0.0_f64, f64::max);
            let (lo, hi) = ((lo / 2.0).max(1e-3), hi * 2.0);
            let names: Vec<&str> = reducers.iter().map(|(n, _)| n.as_str()).collect();
            let n = names.len() as i32;
            let mut chart = ChartBuilder::on(area)
                .caption(format!("format: {format}"), ("sans-serif", 14))
                .margin(8)
                .x_label_area_size(40)
                .y_label_area_size(70)
                .build_cartesian_2d((0..n).into_segmented(), (lo as f32..hi as f32).log_scale())
                .map_err(|e| anyhow!("{e}"))?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .y_desc(measure.label())
                .x_labels(names.len())
                .x_label_formatter(&|x| match x {
                    SegmentValue::CenterOf(i) => names
                        .get(usize::try_from(*i).unwrap_or(usize::MAX))
                        .map_or(String::new(), |s| (*s).to_string()),
                    _ => String::new(),
                })
                .draw()
                .map_err(|e| anyhow!("{e}"))?;
            let boxes: Vec<_> = reducers
                .iter()
                .enumerate()
                .map(|(i, (name, values))| {
                    let q = Quartiles::new(values);
                    let colour = if name.starts_with("whittle") {
                        BLUE
                    } else {
                        RED
                    };
                    Boxplot::new_vertical(SegmentValue::CenterOf(i as i32), &q)
                        .width(20)
                        .whisker_width(0.5)
                        .style(colour)
                })
                .collect();
            chart.draw_series(boxes).map_err(|e| anyhow!("{e}"))?;
            // Every run as a dot over its box: with one to three cases per format, the
            // boxes alone would hide how few values there are.
            chart
                .draw_series(reducers.iter().enumerate().flat_map(|(i, (_, values))| {
                    values.iter().map(move |&v| {
                        Circle::new(
                            (SegmentValue::CenterOf(i as i32), v as f32),
                            3,
                            BLACK.mix(0.6).filled(),
                        )
                    })
                }))
                .map_err(|e| anyhow!("{e}"))?;
        }
        root.present().map_err(|e| anyhow!("{e}"))?;
    }
    Ok(Some(svg))
}

/// A corpus's learning curve: (files analysed, context pairs) after each file.
#[derive(Debug)]
pub(crate) struct Curve<'a> {
    pub(crate) format: &'a str,
    pub(crate) files: u64,
    pub(crate) points: &'a [(u64, usize)],
}

/// The learning curve of every corpus (context pairs against files analysed; the GTR paper's
/// Fig. 5), one panel per format side by side since their scales differ.
pub(crate) fn learning_curve_svg(curves: &[Curve<'_>]) -> Result<String> {
    let mut svg = String::new();
    {
        let width = 420 * u32::try_from(curves.len().max(1)).unwrap_or(1);
        let root = SVGBackend::with_string(&mut svg, (width, 260)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
        let panels = root.split_evenly((1, curves.len().max(1)));
        for (c, area) in curves.iter().zip(panels.iter()) {
            let curve = c.points;
            let max_x = curve.last().map_or(1, |p| p.0).max(1);
            let max_y = curve.iter().map(|p| p.1).max().unwrap_or(1).max(1);
            let mut chart = ChartBuilder::on(area)
                .caption(
                    format!("{} ({} files)", c.format, c.files),
                    ("sans-serif", 13),
                )
                .margin(10)
                .x_label_area_size(30)
                .y_label_area_size(50)
                .build_cartesian_2d(0..max_x, 0..max_y)
                .map_err(|e| anyhow!("{e}"))?;
            chart
                .configure_mesh()
                .disable_mesh()
                .x_desc("files analysed")
                .y_desc("context pairs")
                .draw()
                .map_err(|e| anyhow!("{e}"))?;
            chart
                .draw_series(std::iter::once(PathElement::new(
                    curve.to_vec(),
                    RGBColor(70, 130, 180).stroke_width(2),
                )))
                .map_err(|e| anyhow!("{e}"))?;
        }
        root.present().map_err(|e| anyhow!("{e}"))?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests;
