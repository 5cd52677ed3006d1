//! Start-up: the health check, `--help`, token bootstrap, the request log and the sockets.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use actix_web::http::Method;
use serde_json::json;

use crate::helpers::{spawn_app, spawn_app_with, Options, DEFAULT_TOKEN};

#[actix_web::test]
async fn healthz_is_200_ok_without_a_token() {
    let app = spawn_app();
    let reply = app.send(app.request(Method::GET, "/healthz"), None).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body, json!({"status": "ok"}));
    assert!(reply
        .header("content-type")
        .unwrap_or_default()
        .starts_with("application/json"));
    let with_bad_token = app
        .request(Method::GET, "/healthz")
        .insert_header(("Authorization", "Bearer nobody"));
    assert_eq!(
        app.send(with_bad_token, None).await.body,
        json!({"status": "ok"})
    );
}

#[test]
fn help_lists_every_flag() {
    let output = Command::new(env!("CARGO_BIN_EXE_taskd"))
        .arg("--help")
        .output()
        .expect("cannot run taskd --help");
    assert!(
        output.status.success(),
        "--help exited with {}",
        output.status
    );
    let text = String::from_utf8_lossy(&output.stdout);
    for flag in [
        "--bind",
        "--data-dir",
        "--snapshot-interval-ms",
        "--workers",
        "--log-level",
        "--trusted-proxy",
    ] {
        assert!(
            text.contains(flag),
            "--help does not mention {flag}:\n{text}"
        );
    }
}

#[actix_web::test]
async fn each_request_is_logged_with_method_path_status_microseconds_and_request_id() {
    let app = spawn_app();
    app.get("/api/v1/lists").await.expect(200);
    app.get("/api/v1/lists/nope").await.expect(404);
    for expected in [
        "127.0.0.1 GET /api/v1/lists 200 ",
        "127.0.0.1 GET /api/v1/lists/nope 404 ",
    ] {
        let log = app.wait_for_log(|log| log.contains(expected));
        let line = log
            .lines()
            .find(|line| line.contains(expected))
            .unwrap_or_else(|| panic!("no log line with {expected:?}:\n{log}"));
        let words: Vec<&str> = line.split_whitespace().collect();
        let [.., took, id] = words[..] else {
            panic!("{line}")
        };
        assert!(
            id.starts_with("id=") && id.len() > 3,
            "no request id in {line:?}"
        );
        let micros = took.strip_suffix("us").unwrap_or_else(|| panic!("{line}"));
        assert!(
            !micros.is_empty() && micros.bytes().all(|b| b.is_ascii_digit()),
            "no duration in microseconds in {line:?}"
        );
    }
}

#[actix_web::test]
async fn a_first_start_without_tokens_generates_private_token_files_that_work() {
    let app = spawn_app_with(Options {
        env_tokens: false,
        ..Options::default()
    });
    for name in ["default.token", "admin.token"] {
        let mode = std::fs::metadata(app.path(name))
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "mode of {name}");
    }
    // At least 128 bits, however they are written down.
    assert!(app.default_token.len() >= 22, "{:?}", app.default_token);
    assert!(app.admin_token.len() >= 22, "{:?}", app.admin_token);
    assert_ne!(app.default_token, app.admin_token);

    let me = app.get("/api/v1/me").await;
    me.expect(200);
    assert_eq!(me.data()["name"], "default");
    let alice = app.create_user("alice").await;
    app.user(&alice.token).get("/api/v1/me").await.expect(200);

    let log = app.wait_for_log(|log| log.contains("GET /api/v1/me 200"));
    assert!(!log.contains(&alice.token), "the log shows alice's token");
    assert!(
        log.contains("default.token"),
        "the log does not name the file:\n{log}"
    );
    assert!(
        !log.contains(&app.default_token),
        "the log shows the default token"
    );
    assert!(
        !log.contains(&app.admin_token),
        "the log shows the admin token"
    );
}

#[actix_web::test]
async fn a_default_token_from_the_environment_is_the_token_and_never_logged() {
    let app = spawn_app();
    let written = std::fs::read_to_string(app.path("default.token")).expect("default.token");
    assert_eq!(written.trim(), DEFAULT_TOKEN);
    app.get("/api/v1/me").await.expect(200);
    let log = app.wait_for_log(|log| log.contains("GET /api/v1/me"));
    assert!(
        log.contains("default.token"),
        "the log does not name the file:\n{log}"
    );
    assert!(
        !log.contains(DEFAULT_TOKEN),
        "the log shows the token:\n{log}"
    );
}

/// The server's end of every connection has `TCP_NODELAY`, so small writes (change-stream
/// events) are not held back by the client's delayed ACKs. Checked from outside and without
/// privileges: a parent may copy a socket out of its own child with `pidfd_getfd(2)`, and
/// the copy answers `getsockopt` for the server's socket.
#[actix_web::test]
async fn accepted_connections_have_tcp_nodelay() {
    let app = spawn_app();
    let mut stream = TcpStream::connect(app.address.trim_start_matches("http://")).unwrap();
    write!(stream, "GET /healthz HTTP/1.1\r\nHost: taskd\r\n\r\n").unwrap();
    let mut answer = [0; 12];
    stream.read_exact(&mut answer).unwrap();
    assert_eq!(&answer, b"HTTP/1.1 200", "the connection was served");
    let server_end = server_socket(
        app.pid(),
        stream.peer_addr().unwrap(),
        stream.local_addr().unwrap(),
    );
    assert_eq!(
        server_end.peer_addr().unwrap(),
        stream.local_addr().unwrap()
    );
    assert!(server_end.nodelay().unwrap(), "TCP_NODELAY is off");
    // The OS default is off (as the client's end shows): the server turned it on.
    assert!(!stream.nodelay().unwrap());
}

/// A copy of the socket process `pid` holds for its end `local` of a connection from
/// `remote` (IPv4): its inode from `/proc/PID/net/tcp`, its descriptor from
/// `/proc/PID/fd`, then `pidfd_open` and `pidfd_getfd`.
fn server_socket(pid: u32, local: SocketAddr, remote: SocketAddr) -> TcpStream {
    let table = std::fs::read_to_string(format!("/proc/{pid}/net/tcp")).unwrap();
    let port = |field: &str| u16::from_str_radix(field.rsplit(':').next().unwrap(), 16).unwrap();
    let inode = table
        .lines()
        .skip(1)
        .map(|line| line.split_whitespace().collect::<Vec<_>>())
        .find(|f| port(f[1]) == local.port() && port(f[2]) == remote.port())
        .map(|f| f[9].to_string())
        .unwrap_or_else(|| panic!("no {local} <- {remote} in\n{table}"));
    let link = format!("socket:[{inode}]");
    let fd: i32 = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| std::fs::read_link(path).is_ok_and(|target| target.as_os_str() == &*link))
        .and_then(|path| path.file_name()?.to_str()?.parse().ok())
        .unwrap_or_else(|| panic!("taskd holds no {link}"));
    // SAFETY: plain system calls on integers; each descriptor returned is checked and then
    // owned by exactly one value, which closes it.
    unsafe {
        let pidfd = libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0);
        assert!(
            pidfd >= 0,
            "pidfd_open: {}",
            std::io::Error::last_os_error()
        );
        let pidfd = OwnedFd::from_raw_fd(pidfd as i32);
        let copy = libc::syscall(libc::SYS_pidfd_getfd, pidfd.as_raw_fd(), fd, 0);
        assert!(
            copy >= 0,
            "pidfd_getfd: {}",
            std::io::Error::last_os_error()
        );
        TcpStream::from_raw_fd(copy as i32)
    }
}
