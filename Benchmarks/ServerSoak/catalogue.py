"""What the origins serve and what the clients ask for: shared by the origin process and the clients."""

# Good sources: (file, Pillow format, width, height, width step). Their aspect ratios all differ, and a fit to a
# width that is a multiple of the step has an exact height, so (format, width, height) names one URL's answer.
GOOD_SOURCES = [
    ("p32.jpg", "JPEG", 2400, 1600, 3),
    ("p43.jpg", "JPEG", 1600, 1200, 4),
    ("a11.png", "PNG", 900, 900, 1),        # with alpha
    ("w21.webp", "WEBP", 1800, 900, 2),
    ("t34.png", "PNG", 900, 1200, 3),
]
FIT_WIDTHS = range(96, 721)                  # every source is at least 900 wide: no URL enlarges
BIG_SOURCE = ("big.png", 1500, 1500)         # noise: a ~6.8 MB PNG answer, for slow readers and droppers
SMUGGLED = ("bar.png", 1200, 100)            # what the origin smuggles: a 12:1 bar, like no good answer
HOSTILE_FILE_VARIANTS = 16                   # truncated and bit-flipped copies of the good sources

OUTPUT_FORMATS = ["jpg", "png", "webp"]
FORMAT_NAMES = {"jpg": "JPEG", "png": "PNG", "webp": "WEBP"}     # as Pillow names them
MIME = {"jpg": "image/jpeg", "png": "image/png", "webp": "image/webp"}


def extension(name):
    return name.rsplit(".", 1)[1]


def canary_spellings(canary, good):
    """Source URLs that reach the canary if anything lets them through; none is in the allow-list."""
    return [
        f"http://127.0.0.1:{canary}/x.jpg",
        f"http://localhost:{canary}/x.jpg",
        f"http://[::1]:{canary}/x.jpg",
        f"http://[::ffff:127.0.0.1]:{canary}/x.jpg",
        f"http://2130706433:{canary}/x.jpg",
        f"http://0x7f000001:{canary}/x.jpg",
        f"http://0177.0.0.1:{canary}/x.jpg",
        f"http://127.1:{canary}/x.jpg",
        f"http://0.0.0.0:{canary}/x.jpg",
        f"http://127.0.0.1:{good}@127.0.0.1:{canary}/x.jpg",
        f"http://127.0.0.1:{canary}#@127.0.0.1:{good}/x.jpg",
        f"http://127.0.0.1:{canary}\\@127.0.0.1:{good}/x.jpg",
        f"http://127.0.0.1:{canary}/127.0.0.1:{good}/x.jpg",
        f"HTTP://127.0.0.1:{canary}/x.jpg",
        f"http://127.0.0.1.:{canary}/x.jpg",
        f"http://127.0.0.1%3A{canary}/x.jpg",
    ]
