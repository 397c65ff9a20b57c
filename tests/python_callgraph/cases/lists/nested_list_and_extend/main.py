def resize(image):
    return image + ":resized"

def sharpen(image):
    return image + ":sharp"

def watermark(image):
    return image + ":wm"

def process(image):
    pipeline = [resize]
    pipeline.extend([sharpen])
    pipeline = pipeline + [watermark]
    for step in pipeline:
        image = step(image)
    return image

if __name__ == "__main__":
    process("cat.png")
