//! The logger: `log` macros everywhere, `fern` writing to stderr, set up once by `main`.

use log::LevelFilter;

/// Sends log records at `level` and above to stderr, one line each with a UTC timestamp.
/// Chatty dependencies are held to warnings.
pub fn init(level: LevelFilter) -> Result<(), log::SetLoggerError> {
    fern::Dispatch::new()
        .format(|out, message, record| {
            out.finish(format_args!(
                "{} {:<5} {}: {}",
                // No format string to parse on every line (it was a quarter of a GET).
                chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
                record.level(),
                record.target(),
                message
            ))
        })
        .level(level)
        .level_for("actix_server", level.min(LevelFilter::Warn))
        .level_for("mio", LevelFilter::Warn)
        .chain(std::io::stderr())
        .apply()
}
