"""The origin's files, made with Pillow: good sources, the big noise PNG, the smuggled bar, hostile files."""
import os
import random
import struct
import zlib

from catalogue import BIG_SOURCE, GOOD_SOURCES, HOSTILE_FILE_VARIANTS, SMUGGLED, extension


def make_images(directory, seed):
    from PIL import Image, ImageFilter
    rng = random.Random(seed)

    def photo(width, height, alpha):
        """Smooth colour fields plus noise, so the encoders work as on photos."""
        small = Image.new("RGB", (48, 32))
        small.putdata([(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(48 * 32)])
        image = small.resize((width, height), Image.BICUBIC).filter(ImageFilter.GaussianBlur(2))
        image = Image.blend(image, Image.effect_noise((width, height), 30).convert("RGB"), 0.1)
        if alpha:
            image = image.convert("RGBA")
            image.putalpha(Image.linear_gradient("L").resize((width, height)))
        return image

    for name, fmt, width, height, _ in GOOD_SOURCES:
        options = {"quality": 88} if fmt in ("JPEG", "WEBP") else {}
        photo(width, height, alpha=name.startswith("a")).save(os.path.join(directory, name), fmt, **options)
    name, width, height = BIG_SOURCE
    Image.frombytes("RGB", (width, height), rng.randbytes(width * height * 3)).save(os.path.join(directory, name))
    name, width, height = SMUGGLED
    Image.new("RGB", (width, height), (255, 0, 255)).save(os.path.join(directory, name))

    hostile = os.path.join(directory, "hostile")
    os.makedirs(hostile)
    write(hostile, "bomb.png", png_header_only(20000, 20000))      # 400 MP declared, almost no data
    write(hostile, "bomb64.png", png_header_only(8000, 8000))      # 64 MP: over IMGPROXY_MAX_SRC_RESOLUTION's 50
    for index in range(HOSTILE_FILE_VARIANTS):
        name = GOOD_SOURCES[index % len(GOOD_SOURCES)][0]
        with open(os.path.join(directory, name), "rb") as f:
            data = f.read()
        write(hostile, hostile_file_name("trunc", index), data[:int(len(data) * rng.uniform(0.2, 0.9))])
        flipped = bytearray(data)
        for _ in range(rng.randrange(1, 40)):
            # Half the flips in the first 4 KB, where the headers are.
            position = rng.randrange(min(len(flipped), 4096) if rng.random() < 0.5 else len(flipped))
            flipped[position] ^= 1 << rng.randrange(8)
        write(hostile, hostile_file_name("flip", index), bytes(flipped))


def hostile_file_name(kind, index):
    """The truncated or bit-flipped file `index` (the variants cycle through the good sources)."""
    return f"{kind}-{index}.{extension(GOOD_SOURCES[index % len(GOOD_SOURCES)][0])}"


def write(directory, name, data):
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def png_header_only(width, height):
    """A PNG declaring `width` x `height` pixels with a few bytes of data: a pixel bomb."""
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b""))
