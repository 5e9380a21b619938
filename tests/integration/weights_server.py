#!/usr/bin/env python3
"""A loopback HTTP server of one folder, for weights_download_test.sh, that can misbehave.

    weights_server.py ROOT PORT_FILE MODE [BYTES]

Serves the files under ROOT on 127.0.0.1 at a free port (written to PORT_FILE once listening)
and logs each request's path and Range header to stdout. MODE:
  range        honours "Range: bytes=N-" with 206 and Content-Range (what Hugging Face does)
  no-range     ignores Range: always 200 with the whole file
  die-after    announces the whole file's Content-Length, sends BYTES bytes, then the process
               exits (a server that dies mid-way: the client sees a truncated body)
Standard library only.
"""

import http.server
import os
import sys

root, port_file, mode = sys.argv[1], sys.argv[2], sys.argv[3]
limit = int(sys.argv[4]) if len(sys.argv) > 4 else 0


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        asked = self.headers.get("Range", "")
        print(f"GET {self.path} range={asked or '-'}", flush=True)
        path = os.path.join(root, self.path.lstrip("/"))
        if not os.path.isfile(path):
            self.send_error(404)
            return
        with open(path, "rb") as f:
            body = f.read()
        start = 0
        if mode == "range" and asked.startswith("bytes=") and asked.endswith("-"):
            start = int(asked[len("bytes="):-1])
            if start >= len(body):
                self.send_error(416)
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(len(body) - start))
        self.end_headers()
        if mode == "die-after":
            self.wfile.write(body[:limit])
            self.wfile.flush()
            os._exit(0)
        self.wfile.write(body[start:])

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
