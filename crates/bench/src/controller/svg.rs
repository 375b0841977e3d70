//! A small typed SVG writer and the benchmark's line charts: no plotting dependency, and the
//! output is plain, deterministic text that diffs well.

use std::fmt::{self, Write};

/// One drawing element.
#[derive(Debug, Clone, PartialEq)]
pub enum Element {
    Line {
        from: (f64, f64),
        to: (f64, f64),
        stroke: &'static str,
        dashed: bool,
    },
    Polyline {
        points: Vec<(f64, f64)>,
        stroke: &'static str,
        dashed: bool,
    },
    Circle {
        center: (f64, f64),
        radius: f64,
        fill: &'static str,
    },
    Text {
        at: (f64, f64),
        text: String,
        size: f64,
        anchor: Anchor,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    fn as_str(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// A whole picture.
#[derive(Debug, Clone, PartialEq)]
pub struct Svg {
    pub width: f64,
    pub height: f64,
    pub elements: Vec<Element>,
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

impl fmt::Display for Svg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif">"#,
            w = self.width,
            h = self.height
        )?;
        writeln!(f, r#"<rect width="100%" height="100%" fill="white"/>"#)?;
        for element in &self.elements {
            match element {
                Element::Line {
                    from,
                    to,
                    stroke,
                    dashed,
                } => writeln!(
                    f,
                    r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{stroke}"{}/>"#,
                    from.0,
                    from.1,
                    to.0,
                    to.1,
                    dash(*dashed)
                )?,
                Element::Polyline {
                    points,
                    stroke,
                    dashed,
                } => {
                    let mut list = String::new();
                    for (x, y) in points {
                        let _ = write!(list, "{x:.1},{y:.1} ");
                    }
                    writeln!(
                        f,
                        r#"<polyline points="{}" fill="none" stroke="{stroke}" stroke-width="2"{}/>"#,
                        list.trim_end(),
                        dash(*dashed)
                    )?
                }
                Element::Circle {
                    center,
                    radius,
                    fill,
                } => writeln!(
                    f,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="{radius}" fill="{fill}"/>"#,
                    center.0, center.1
                )?,
                Element::Text {
                    at,
                    text,
                    size,
                    anchor,
                } => writeln!(
                    f,
                    r#"<text x="{:.1}" y="{:.1}" font-size="{size}" text-anchor="{}">{}</text>"#,
                    at.0,
                    at.1,
                    anchor.as_str(),
                    escape(text)
                )?,
            }
        }
        writeln!(f, "</svg>")
    }
}

fn dash(dashed: bool) -> &'static str {
    if dashed {
        r#" stroke-dasharray="6 4""#
    } else {
        ""
    }
}

/// One line of a chart: `(x, y)` points in data units.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub label: String,
    pub color: &'static str,
    pub dashed: bool,
    pub points: Vec<(f64, f64)>,
}

/// A line chart with a logarithmic x axis (monitor counts) and a y axis from zero, or
/// logarithmic over whole decades (`log_y`: for series orders of magnitude apart).
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    pub log_y: bool,
}

const PANEL_WIDTH: f64 = 520.0;
const PANEL_HEIGHT: f64 = 420.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 40.0;
const PLOT_HEIGHT: f64 = 250.0;

impl Chart {
    /// Draws the chart with its top-left corner at `origin`.
    fn draw(&self, origin: (f64, f64), out: &mut Vec<Element>) {
        let points = self.series.iter().flat_map(|s| &s.points);
        let xs: Vec<f64> = points.clone().map(|p| p.0.max(1.0).log10()).collect();
        let (mut x_min, mut x_max) = xs
            .iter()
            .fold((f64::MAX, f64::MIN), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        if xs.is_empty() {
            (x_min, x_max) = (0.0, 1.0);
        }
        // A margin of a fifth of a decade each side, so points sit inside the frame.
        x_min -= 0.2;
        x_max += 0.2;
        let ys: Vec<f64> = points.map(|p| p.1).collect();
        let y_max = nice_ceiling(ys.iter().copied().fold(0.0, f64::max));
        // Log scale: whole decades around the positive values.
        let positive = ys.iter().copied().filter(|&y| y > 0.0);
        let (decade_lo, decade_hi) = positive.fold((f64::MAX, f64::MIN), |(lo, hi), y| {
            (lo.min(y.log10().floor()), hi.max(y.log10().ceil()))
        });
        let (decade_lo, decade_hi) = if decade_lo > decade_hi {
            (0.0, 1.0)
        } else {
            (decade_lo, decade_hi.max(decade_lo + 1.0))
        };
        let log_y = self.log_y;
        let plot_width = PANEL_WIDTH - LEFT - RIGHT;
        let (ox, oy) = (origin.0 + LEFT, origin.1 + TOP);
        let x_of = |x: f64| ox + (x.max(1.0).log10() - x_min) / (x_max - x_min) * plot_width;
        let y_of = |y: f64| {
            let share = if log_y {
                (y.max(10f64.powf(decade_lo)).log10() - decade_lo) / (decade_hi - decade_lo)
            } else {
                y / y_max
            };
            oy + PLOT_HEIGHT - share * PLOT_HEIGHT
        };

        out.push(Element::Text {
            at: (origin.0 + PANEL_WIDTH / 2.0, origin.1 + 20.0),
            text: self.title.clone(),
            size: 15.0,
            anchor: Anchor::Middle,
        });
        let axis = "#444";
        out.push(Element::Line {
            from: (ox, oy + PLOT_HEIGHT),
            to: (ox + plot_width, oy + PLOT_HEIGHT),
            stroke: axis,
            dashed: false,
        });
        out.push(Element::Line {
            from: (ox, oy),
            to: (ox, oy + PLOT_HEIGHT),
            stroke: axis,
            dashed: false,
        });
        let y_ticks: Vec<f64> = if log_y {
            // Decades are small whole numbers.
            (decade_lo as i32..=decade_hi as i32)
                .map(|d| 10f64.powi(d))
                .collect()
        } else {
            (0..=4).map(|k| y_max * f64::from(k) / 4.0).collect()
        };
        for value in y_ticks {
            let y = y_of(value);
            out.push(Element::Line {
                from: (ox, y),
                to: (ox + plot_width, y),
                stroke: "#ddd",
                dashed: false,
            });
            out.push(Element::Text {
                at: (ox - 6.0, y + 4.0),
                text: format_tick(value),
                size: 11.0,
                anchor: Anchor::End,
            });
        }
        let mut ticks: Vec<f64> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0))
            .collect();
        ticks.sort_by(f64::total_cmp);
        ticks.dedup();
        for x in ticks {
            out.push(Element::Text {
                at: (x_of(x), oy + PLOT_HEIGHT + 16.0),
                text: format_tick(x),
                size: 11.0,
                anchor: Anchor::Middle,
            });
        }
        out.push(Element::Text {
            at: (ox + plot_width / 2.0, oy + PLOT_HEIGHT + 34.0),
            text: self.x_label.clone(),
            size: 12.0,
            anchor: Anchor::Middle,
        });
        out.push(Element::Text {
            at: (origin.0 + 8.0, oy - 10.0),
            text: self.y_label.clone(),
            size: 12.0,
            anchor: Anchor::Start,
        });
        for (k, series) in self.series.iter().enumerate() {
            let screen: Vec<(f64, f64)> = series
                .points
                .iter()
                .map(|&(x, y)| (x_of(x), y_of(y)))
                .collect();
            if screen.len() > 1 {
                out.push(Element::Polyline {
                    points: screen.clone(),
                    stroke: series.color,
                    dashed: series.dashed,
                });
            }
            for center in screen {
                out.push(Element::Circle {
                    center,
                    radius: 3.5,
                    fill: series.color,
                });
            }
            // Legend, two columns under the plot.
            let column = (k % 2) as f64;
            let row = (k / 2) as f64;
            let (lx, ly) = (
                origin.0 + 20.0 + column * 250.0,
                oy + PLOT_HEIGHT + 58.0 + row * 18.0,
            );
            out.push(Element::Line {
                from: (lx, ly - 4.0),
                to: (lx + 24.0, ly - 4.0),
                stroke: series.color,
                dashed: series.dashed,
            });
            out.push(Element::Text {
                at: (lx + 30.0, ly),
                text: series.label.clone(),
                size: 11.0,
                anchor: Anchor::Start,
            });
        }
    }
}

/// Charts side by side in one picture.
pub fn side_by_side(charts: &[Chart]) -> Svg {
    let mut elements = Vec::new();
    for (k, chart) in charts.iter().enumerate() {
        chart.draw((k as f64 * PANEL_WIDTH, 0.0), &mut elements);
    }
    Svg {
        width: PANEL_WIDTH * charts.len().max(1) as f64,
        height: PANEL_HEIGHT,
        elements,
    }
}

/// The smallest of 1, 2, 2.5, 5 times a power of ten at or above `value` (1 for nothing).
fn nice_ceiling(value: f64) -> f64 {
    if value <= 0.0 || !value.is_finite() {
        return 1.0;
    }
    let magnitude = 10f64.powf(value.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|&c| c >= value)
        .unwrap_or(10.0 * magnitude)
}

/// `1500` as `1.5k`, `10000` as `10k`, small values with at most one decimal.
fn format_tick(value: f64) -> String {
    if value >= 1000.0 {
        let k = value / 1000.0;
        if k.fract() == 0.0 {
            format!("{k:.0}k")
        } else {
            format!("{k:.1}k")
        }
    } else if value.fract() == 0.0 {
        format!("{value:.0}")
    } else if value < 1.0 {
        let text = format!("{value:.3}");
        text.trim_end_matches('0').to_owned()
    } else {
        format!("{value:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceilings_and_ticks_are_round() {
        assert_eq!(nice_ceiling(0.0), 1.0);
        assert_eq!(nice_ceiling(3.2), 5.0);
        assert_eq!(nice_ceiling(180.0), 200.0);
        assert_eq!(nice_ceiling(1000.0), 1000.0);
        assert_eq!(format_tick(10000.0), "10k");
        assert_eq!(format_tick(1500.0), "1.5k");
        assert_eq!(format_tick(62.5), "62.5");
        assert_eq!(format_tick(10f64.powi(-2)), "0.01");
    }

    #[test]
    fn a_chart_is_well_formed_svg_with_its_labels_escaped() {
        let chart = Chart {
            title: "latency <ms> & more".into(),
            x_label: "ServiceMonitors".into(),
            y_label: "ms".into(),
            series: vec![Series {
                label: "testkube p99".into(),
                color: "#1f77b4",
                dashed: false,
                points: vec![(1000.0, 12.0), (10000.0, 80.0)],
            }],
            log_y: false,
        };
        let text = side_by_side(&[chart.clone(), chart]).to_string();
        assert!(text.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1040\""));
        assert!(text.trim_end().ends_with("</svg>"));
        assert!(text.contains("latency &lt;ms&gt; &amp; more"));
        assert_eq!(text.matches("<polyline").count(), 2);
        assert_eq!(text.matches("<circle").count(), 4);
    }
}
