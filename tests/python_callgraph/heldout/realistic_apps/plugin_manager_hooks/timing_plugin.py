import time

started = []


def configure(config):
    config.addoption("durations", 5)
    started.append(time.monotonic())
