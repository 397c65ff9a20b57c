def _ignore(*args):
    return None


class Downloader:
    def __init__(self, fetch_chunk, on_progress=None, on_done=_ignore, chunk_size=2):
        self._fetch_chunk = fetch_chunk
        self._on_progress = on_progress or _ignore
        self._on_done = on_done
        self.chunk_size = chunk_size

    def run(self, total):
        received = 0
        while received < total:
            received += len(self._fetch_chunk(received, self.chunk_size))
            self._on_progress(received, total)
        self._on_done(received)
        return received
