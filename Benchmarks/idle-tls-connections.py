#!/usr/bin/env python3
"""What an idle TLS connection costs a running `familysync serve --tls-certificate …`: opens COUNT
connections that complete the handshake and then, for h2, send the preface and SETTINGS, for
http/1.1 one GET /health/live; prints the server's RSS growth each.

    python3 Benchmarks/idle-tls-connections.py PORT COUNT h2|http/1.1 SERVER_PID
"""
import os
import socket
import ssl
import sys
import time

port, n, alpn, pid = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
def rss():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"): return int(line.split()[1])
ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
ctx.set_alpn_protocols([alpn])
time.sleep(1); before = rss(); conns = []
for i in range(n):
    s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="localhost")
    if alpn == "h2":
        s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
        s.recv(65536)
    else:
        s.sendall(b"GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n"); s.recv(65536)
    conns.append(s)
time.sleep(2); after = rss()
print(f"{alpn}: {n} idle TLS connections: {(after - before) / n:.1f} KiB each (RSS {before/1024:.1f} -> {after/1024:.1f} MiB)")
