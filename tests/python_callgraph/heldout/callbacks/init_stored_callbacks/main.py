from transfer import Downloader

DATA = b"abcdefg"


def read_slice(offset, size):
    return DATA[offset:offset + size]


class ProgressBar:
    def __init__(self):
        self.updates = []

    def update(self, done, total):
        self.updates.append(done * 100 // total)

    def finish(self, received):
        self.updates.append("done")


def download_with_bar():
    bar = ProgressBar()
    return Downloader(read_slice, on_progress=bar.update, on_done=bar.finish).run(len(DATA))


def download_quietly():
    return Downloader(read_slice).run(len(DATA))


if __name__ == "__main__":
    download_with_bar()
    download_quietly()
