from __future__ import annotations

from geo import Geocoder

def locate(geocoder: Geocoder, address: str) -> tuple[float, float]:
    return geocoder.lookup(address)

if __name__ == "__main__":
    locate(Geocoder(), "Main St 1")
