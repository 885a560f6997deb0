"""A stand-in profile mirror for tests/cli/test_profiles_update.sh: serves
the files of a directory over HTTPS on 127.0.0.1 only.

usage: profiles_server.py ROOT PORTFILE CERT KEY

The first path component chooses how a file is served:
  /ok/NAME        whole
  /stall/NAME     headers and 10 bytes, then nothing for 120 s
  /partial/NAME   the full Content-Length, half the bytes, then the
                  connection closes (a download cut off)
Anything missing is a 404.
"""
import http.server
import os
import socketserver
import ssl
import sys
import time

root, portfile, cert, key = sys.argv[1:5]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def do_GET(self):
        parts = self.path.lstrip("/").split("/", 1)
        path = os.path.join(root, os.path.basename(parts[-1]))
        if len(parts) != 2 or not os.path.isfile(path):
            self.send_error(404)
            return
        with open(path, "rb") as f:
            body = f.read()
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if parts[0] == "stall":
            self.wfile.write(body[:10])
            self.wfile.flush()
            time.sleep(120)
        elif parts[0] == "partial":
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
        else:
            self.wfile.write(body)


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a client that hung up (oversized, stalled): expected here


srv = Server(("127.0.0.1", 0), Handler)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
