//! The percentile plot of `taskd bench --report`, as a person sees it: the SVG that
//! `bench_plot::svg` writes, rendered by headless Chromium, has the curves' colours and the
//! axes' text on it.

use std::process::Command;

use taskd_bench::plot::{svg, Curve};

/// The first chromium-like browser that runs, as the docs page test finds it.
fn browser() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

/// A curve from `(percentile, ms)` pairs.
fn curve(run: &str, operation: &str, points: &[(f64, f64)]) -> Curve {
    Curve {
        run: run.into(),
        operation: operation.into(),
        points: points.to_vec(),
    }
}

/// The pixels of `pixels` within `tolerance` of `colour` on every channel.
fn count_near(pixels: &[[u8; 3]], colour: [u8; 3], tolerance: u8) -> usize {
    pixels
        .iter()
        .filter(|p| {
            p.iter()
                .zip(colour)
                .all(|(a, b)| a.abs_diff(b) <= tolerance)
        })
        .count()
}

#[test]
fn the_percentile_plot_renders_its_curves_and_text_in_a_headless_browser() {
    let Some(browser) = browser() else {
        eprintln!("SKIPPED: no chromium installed (apt-get install chromium) to render the plot");
        return;
    };
    let tail = [
        (0.0, 1.0),
        (50.0, 1.8),
        (90.0, 3.0),
        (99.0, 6.0),
        (99.9, 14.0),
        (99.99, 25.0),
        (100.0, 31.0),
    ];
    let slower: Vec<(f64, f64)> = tail.iter().map(|(p, ms)| (*p, ms * 1.3)).collect();
    let document = svg(&[
        curve("new", "create task", &tail),
        curve("old", "create task", &slower),
        curve("new", "list <tasks> & more", &[(0.0, 0.5), (99.0, 2.0)]),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let plot = dir.path().join("plot.svg");
    let shot = dir.path().join("plot.png");
    std::fs::write(&plot, &document).unwrap();
    let profile = format!("--user-data-dir={}", dir.path().join("profile").display());
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            &profile,
            "--window-size=960,560",
            &format!("--screenshot={}", shot.display()),
            &format!("file://{}", plot.display()),
        ])
        .output()
        .expect("run chromium");
    assert!(
        shot.exists(),
        "no screenshot: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buffer).unwrap();
    assert_eq!((info.width, info.height), (960, 560));
    let channels = info.color_type.samples();
    assert!(channels >= 3, "{:?}", info.color_type);
    let pixels: Vec<[u8; 3]> = buffer[..info.buffer_size()]
        .chunks(channels)
        .map(|p| [p[0], p[1], p[2]])
        .collect();

    let white = count_near(&pixels, [255, 255, 255], 0);
    assert!(white > pixels.len() / 2, "the background is white");
    assert!(white < pixels.len(), "the screenshot is blank");
    // The "create task" colour (two runs, one solid, one dashed) and the "list" colour.
    let blue = count_near(&pixels, [0x1f, 0x77, 0xb4], 40);
    let red = count_near(&pixels, [0xd6, 0x27, 0x28], 40);
    assert!(blue > 800, "the create task curves: {blue} pixels");
    assert!(red > 150, "the list curve: {red} pixels");
    // Text and the frame: the title, tick labels, legend.
    let dark = count_near(&pixels, [0, 0, 0], 90);
    assert!(dark > 800, "text and frame: {dark} dark pixels");
}
