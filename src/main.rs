//! The `taskd` binary: reads the configuration, sets up logging, and runs the application.

use std::process::ExitCode;

use taskd::config::Config;
use taskd::logging;
use taskd::startup::Application;

/// mimalloc: loading a million-record snapshot takes about two thirds of the time it takes
/// with the system allocator (measured with `benches/durability.rs`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let config = match Config::load() {
        Ok(config) => config,
        Err(e) => {
            eprintln!("taskd: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = logging::init(config.log_level, config.log_format) {
        eprintln!("taskd: cannot set up logging: {e}");
        return ExitCode::FAILURE;
    }
    let outcome = actix_web::rt::System::new().block_on(async move {
        let app = Application::build(&config)?;
        app.run().await
    });
    let code = match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            log::error!("{e}");
            ExitCode::FAILURE
        }
    };
    logging::flush();
    code
}
