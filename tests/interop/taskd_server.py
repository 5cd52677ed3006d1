"""A taskd server for the interop scripts: the given binary on a temporary data directory,
on a port of its choosing, with `token` as its default user's token.

    server = Server("target/release/taskd", token, "taskd-caldav-")
    status, body = server.api("POST", "/api/v1/tasks", {"name": "a"})
    server.stop()

`server.root` is its base URL; `server.log` the last 200 lines it logged.
"""

import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading


class Server:
    def __init__(self, binary, token, prefix="taskd-interop-"):
        self.binary = binary
        self.token = token
        self.dir = tempfile.mkdtemp(prefix=prefix)
        self.log = []
        self.port = None
        self._start(0)

    def _start(self, port):
        env = {k: v for k, v in os.environ.items() if not k.startswith("TASKD_")}
        env["TASKD_DEFAULT_TOKEN"] = self.token
        self.proc = subprocess.Popen(
            [self.binary, "--bind", f"127.0.0.1:{port}",
             "--data-dir", os.path.join(self.dir, "data"),
             "--durability", "write", "--workers", "2"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env=env, text=True)
        self.port = None
        found = threading.Event()
        proc = self.proc

        def drain():  # the server logs a line per request: keep the pipe empty
            for line in proc.stderr:
                self.log.append(line)
                del self.log[:-200]
                m = re.search(r"taskd listening on http://([^ :]+):(\d+)", line)
                if m and self.port is None:
                    self.host, self.port = m.group(1), int(m.group(2))
                    found.set()
            found.set()

        threading.Thread(target=drain, daemon=True).start()
        if not found.wait(30) or self.port is None:
            self.stop()
            sys.exit("taskd did not start:\n" + "".join(self.log))
        self.root = f"http://{self.host}:{self.port}"
        self.conn = None

    def api(self, method, path, body=None):
        """A JSON API request on one kept connection (made anew, up to three times, when
        it fails): (status, decoded body or None)."""
        for attempt in range(3):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
                headers = {"Authorization": f"Bearer {self.token}"}
                data = None
                if body is not None:
                    data = json.dumps(body).encode()
                    headers["Content-Type"] = "application/json"
                self.conn.request(method, path, body=data, headers=headers)
                reply = self.conn.getresponse()
                payload = reply.read()
                return reply.status, json.loads(payload) if payload else None
            except (http.client.HTTPException, ConnectionError, OSError):
                self.conn = None
                if attempt == 2:
                    raise

    def restart(self):
        """Stops the server and starts it again on the same port and data directory (a
        client sees its connections dropped, then the same server back)."""
        port = self.port
        self._halt()
        self.conn = None
        self._start(port)

    def _halt(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    def stop(self):
        self._halt()
        shutil.rmtree(self.dir, ignore_errors=True)
