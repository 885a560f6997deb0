"""A stand-in upload server for tests/cli/test_upload.sh, on 127.0.0.1 only.

usage: upload_server.py MODE PORTFILE LOG SAVE [CERT KEY]

MODE  ok      answer every PUT/POST with 201 and a ticket id
      503x2   answer 503 twice, then as ok
      404     answer 404 (a bucket that does not exist)
      hang    read the request and never answer
PORTFILE  the port chosen (written once listening)
LOG       one line per request: "METHOD PATH"
SAVE      the body of the last request
CERT KEY  serve HTTPS with this certificate
"""
import http.server
import os
import socketserver
import ssl
import sys
import threading
import time

mode, portfile, logfile, savefile = sys.argv[1:5]
tls = sys.argv[5:7]
count = 0
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def handle_upload(self):
        global count
        with lock:
            count += 1
            n = count
        with open(logfile, "a") as f:
            f.write(f"{self.command} {self.path}\n")
        length = int(self.headers.get("Content-Length", "0"))
        body = b""
        while len(body) < length:
            chunk = self.rfile.read(min(65536, length - len(body)))
            if not chunk:
                break
            body += chunk
        with open(savefile, "wb") as f:
            f.write(body)
        if mode == "hang":
            time.sleep(120)
            return
        if mode == "404" or (mode == "503x2" and n <= 2):
            code, text = (404, b"no such bucket\n") if mode == "404" else (503, b"try later\n")
        else:
            code, text = 201, f"TICKET-{n:04d} received {len(body)} bytes\n".encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        self.wfile.write(text)

    do_PUT = handle_upload
    do_POST = handle_upload


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


httpd = Server(("127.0.0.1", 0), Handler)
if tls:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(tls[0], tls[1])
    httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
with open(portfile + ".tmp", "w") as f:
    f.write(str(httpd.server_address[1]))
os.rename(portfile + ".tmp", portfile)
httpd.serve_forever()
