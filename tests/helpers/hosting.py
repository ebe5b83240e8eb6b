"""What the hosting tests share: a port that counts the connections made to it, and the live
worker processes below a process."""

from __future__ import annotations

import socket
import threading

import psutil


class Listener:
    """A TCP port on 127.0.0.1 that counts the connections made to it: a stand-in for a hostile
    Dask scheduler or image host (also used by the browser tests)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()


def live_workers(root: psutil.Process) -> list[psutil.Process]:
    out = []
    for p in root.children():
        try:
            cmd = " ".join(p.cmdline())
            if "multiprocessing.forkserver" in cmd:
                out += [c for c in p.children(recursive=True) if c.status() != psutil.STATUS_ZOMBIE]
            elif "multiprocessing.resource_tracker" not in cmd and p.status() != psutil.STATUS_ZOMBIE:
                out += [p, *p.children(recursive=True)]
        except psutil.NoSuchProcess:
            pass
    return out
