#!/usr/bin/env python3
"""A headless client of radiant's live viewer (issue 21), for measuring what watching costs a run.

Connects to ws://HOST:PORT/ws as the page does (standard library only: the device machine has nothing
else), then behaves like a browser tab:
  idle    asks for one full-size frame a second (the page refreshing under a still camera);
  moving  asks for the next half-size frame as soon as the last arrives, the camera orbiting the capture's
          focus (the page while someone drags).
Retries until the server is up; ends when it closes. Prints the frames received and their rate.
Usage: live_client.py PORT idle|moving [HOST]
"""
import base64, json, math, os, socket, struct, sys, time


def connect(host, port):
    for _ in range(600):
        try:
            s = socket.create_connection((host, port), timeout=5)
            break
        except OSError:
            time.sleep(0.1)
    else:
        sys.exit("live_client: no server")
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    if b" 101 " not in head.split(b"\r\n")[0]:
        sys.exit(f"live_client: handshake refused: {head[:80]!r}")
    s.settimeout(None)
    return s


def send_text(s, text):
    payload, mask = text.encode(), os.urandom(4)
    n = len(payload)
    head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n))
    s.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))


def read(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


def receive(s):
    b0, b1 = read(s, 2)
    n = b1 & 0x7F
    if n == 126:
        n = struct.unpack(">H", read(s, 2))[0]
    elif n == 127:
        n = struct.unpack(">Q", read(s, 8))[0]
    return b0 & 0x0F, read(s, n)


def turn(v, k, a):  # Rodrigues
    c, s_ = math.cos(a), math.sin(a)
    cr = [k[1] * v[2] - k[2] * v[1], k[2] * v[0] - k[0] * v[2], k[0] * v[1] - k[1] * v[0]]
    d = sum(k[i] * v[i] for i in range(3))
    return [v[i] * c + cr[i] * s_ + k[i] * d * (1 - c) for i in range(3)]


def main():
    port, mode = int(sys.argv[1]), sys.argv[2]
    host = sys.argv[3] if len(sys.argv) > 3 else "127.0.0.1"
    s = connect(host, port)
    hello = None
    while hello is None:
        op, data = receive(s)
        if op == 1 and json.loads(data).get("type") == "hello":
            hello = json.loads(data)
    while not hello.get("cameras"):  # the dataset opens after the server starts: wait for its cameras
        time.sleep(0.5)
        s.close()
        s = connect(host, port)
        op, data = receive(s)
        hello = json.loads(data) if op == 1 else {}
    cam, focus, up = hello["cameras"][0], hello.get("focus", [0, 0, 0]), hello.get("up", [0, -1, 0])
    rows, t = cam["R"], cam["t"]  # R as rows, world→camera
    pos = [-sum(rows[k][i] * t[k] for k in range(3)) for i in range(3)]
    frames, start, angle, ident = 0, time.time(), 0.0, 0
    try:
        while True:
            scale = 0.5 if mode == "moving" else 1.0
            w, h = max(16, round(cam["width"] * scale)), max(16, round(cam["height"] * scale))
            if mode == "moving":
                angle += 0.03
            r = [turn(row, up, angle) for row in rows]
            p = [focus[i] + v for i, v in enumerate(turn([pos[i] - focus[i] for i in range(3)], up, angle))]
            tt = [-sum(r[k][i] * p[i] for i in range(3)) for k in range(3)]
            ident += 1
            send_text(s, json.dumps({"type": "view", "id": ident, "layer": "rgb", "quality": 60 if scale < 1 else 85,
                                     "camera": {"width": w, "height": h, "fx": cam["fx"] * scale, "fy": cam["fy"] * scale,
                                                "cx": w / 2, "cy": h / 2, "R": r[0] + r[1] + r[2], "t": tt}}))
            while True:
                op, data = receive(s)
                if op == 2:
                    frames += 1
                    break
            if mode == "idle":
                time.sleep(1.0)
    except (EOFError, ConnectionError, OSError):
        pass
    took = time.time() - start
    print(f"live_client {mode}: {frames} frames in {took:.1f} s ({frames / max(took, 1e-9):.1f} frames/s)")


if __name__ == "__main__":
    main()
