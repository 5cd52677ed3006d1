//! The `taskd` binary: reads the configuration, sets up logging, and runs the application
//! (or the subcommand's tool).

use std::os::unix::process::CommandExt;
use std::process::ExitCode;

use taskd::config::Config;
use taskd::logging;
use taskd::startup::{Application, Exit};
use taskd::tools;

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
    // A tool's own output is its summary line: only warnings and errors are logged.
    let level = match config.tool {
        Some(_) => config.log_level.min(log::LevelFilter::Warn),
        None => config.log_level,
    };
    if let Err(e) = logging::init(level, config.log_format) {
        eprintln!("taskd: cannot set up logging: {e}");
        return ExitCode::FAILURE;
    }
    // Tests only (feature `failpoints`): the failpoints FAILPOINTS names
    // (`name=actions;...`) act from the start; `http::failpoints` sets them later.
    #[cfg(feature = "failpoints")]
    let _failpoints = fail::FailScenario::setup();
    if let Some(tool) = &config.tool {
        let code = match tools::run(&config.data_dir, tool) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("taskd: {e}");
                ExitCode::from(e.exit_code())
            }
        };
        logging::flush();
        return code;
    }
    let outcome = actix_web::rt::System::new().block_on(async move {
        let app = Application::build(&config)?;
        // Loading a large space frees its scratch memory (sorted runs, decoded chunks) on
        // the threads that built it, which end: give it back to the system now rather
        // than keep it resident (at 1,000,000 tasks, 100 to 190 bytes a task).
        // SAFETY: `mi_collect` only asks mimalloc to collect; it takes no pointer.
        unsafe { libmimalloc_sys::mi_collect(true) };
        app.run().await
    });
    let code = match outcome {
        Ok(Exit::Stopped) => ExitCode::SUCCESS,
        Ok(Exit::Restart(addr)) => {
            logging::flush();
            // The same binary, arguments and environment, in this process (same pid), on the
            // same address: the lock, sockets and files are closed on exec.
            let mut args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
            let bind = args.iter().position(|a| a == "--bind");
            if let Some(value) = bind.and_then(|at| args.get_mut(at + 1)) {
                *value = addr.to_string().into();
            }
            args.retain(|a| !a.to_string_lossy().starts_with("--bind="));
            let error = std::process::Command::new("/proc/self/exe")
                .args(args)
                .env("TASKD_BIND", addr.to_string())
                .exec();
            log::error!("cannot restart: {error}");
            ExitCode::FAILURE
        }
        Err(e) => {
            log::error!("{e}");
            ExitCode::FAILURE
        }
    };
    logging::flush();
    code
}
