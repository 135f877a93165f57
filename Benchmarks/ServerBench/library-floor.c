/*
 * library-floor: the least CPU time any image server can spend on one server-bench request, measured
 * with the raw C libraries both servers use.
 *
 *     library-floor SOURCE jpeg|webp FIT QUALITY SECONDS
 *
 * One request here is: decode SOURCE from memory (JPEG at the smallest DCT scale that still covers the
 * fitted size, as both servers do; PNG in full), take the fitted size's pixels by nearest neighbour
 * (alpha flattened onto white for JPEG), and encode them at QUALITY (libjpeg with its defaults, or libwebp
 * with its default method 4, as Pillow and our server use). No download, no HTTP, no resampling filter:
 * everything a real server adds is left out, so the rate printed is an upper bound on what a server that
 * does the same work can answer per core.
 *
 * Prints one line: "<microseconds of CPU per request> <requests timed>".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <time.h>
#include <jpeglib.h>
#include <png.h>
#include <webp/encode.h>

struct pixels { unsigned char *rgba; int width, height; };

struct jpeg_failure { struct jpeg_error_mgr manager; jmp_buf jump; };

static void on_jpeg_error(j_common_ptr info) { longjmp(((struct jpeg_failure *)info->err)->jump, 1); }

static void fail(const char *what) { fprintf(stderr, "library-floor: %s\n", what); exit(1); }

static double cpu_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* The fitted size of a width x height image in a fit x fit box (never enlarged). */
static void fitted(int width, int height, int fit, int *out_width, int *out_height) {
    double scale = (double)fit / (width > height ? width : height);
    if (scale > 1) scale = 1;
    *out_width = (int)(width * scale + 0.5); if (*out_width < 1) *out_width = 1;
    *out_height = (int)(height * scale + 0.5); if (*out_height < 1) *out_height = 1;
}

static struct pixels decode_jpeg(const unsigned char *bytes, size_t size, int fit) {
    struct jpeg_decompress_struct info;
    struct jpeg_failure failure;
    info.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = on_jpeg_error;
    if (setjmp(failure.jump)) fail("JPEG decode failed");
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, bytes, size);
    jpeg_read_header(&info, TRUE);
    int width, height;
    fitted((int)info.image_width, (int)info.image_height, fit, &width, &height);
    int ratio = (int)info.image_width / width;
    if ((int)info.image_height / height < ratio) ratio = (int)info.image_height / height;
    int denominator = ratio >= 8 ? 8 : ratio >= 4 ? 4 : ratio >= 2 ? 2 : 1;
    info.scale_num = 1;
    info.scale_denom = (unsigned)denominator;
    info.out_color_space = JCS_EXT_RGBA;
    jpeg_start_decompress(&info);
    struct pixels image = { malloc((size_t)info.output_width * info.output_height * 4),
                            (int)info.output_width, (int)info.output_height };
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = image.rgba + (size_t)info.output_scanline * (size_t)image.width * 4;
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    return image;
}

/* Sets `*has_alpha` from the file's own format (an opaque PNG takes the opaque paths). */
static struct pixels decode_png(const unsigned char *bytes, size_t size, int *has_alpha) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, bytes, size)) fail("PNG header failed");
    *has_alpha = (image.format & PNG_FORMAT_FLAG_ALPHA) != 0;
    image.format = PNG_FORMAT_RGBA;
    struct pixels out = { malloc(PNG_IMAGE_SIZE(image)), (int)image.width, (int)image.height };
    if (!png_image_finish_read(&image, NULL, out.rgba, 0, NULL)) fail("PNG decode failed");
    return out;
}

/* The fitted size's pixels, nearest neighbour; alpha flattened onto white when `flatten`. */
static struct pixels sample(struct pixels source, int width, int height, int flatten) {
    struct pixels out = { malloc((size_t)width * height * 4), width, height };
    for (int y = 0; y < height; y++) {
        const unsigned char *row = source.rgba + (size_t)(y * source.height / height) * source.width * 4;
        unsigned char *to = out.rgba + (size_t)y * width * 4;
        for (int x = 0; x < width; x++) {
            const unsigned char *p = row + (size_t)(x * source.width / width) * 4;
            for (int c = 0; c < 3; c++)
                to[x * 4 + c] = flatten ? (unsigned char)((p[c] * p[3] + 255 * (255 - p[3]) + 127) / 255) : p[c];
            to[x * 4 + 3] = flatten ? 255 : p[3];
        }
    }
    return out;
}

static size_t encode_jpeg(struct pixels image, int quality) {
    struct jpeg_compress_struct info;
    struct jpeg_failure failure;
    info.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = on_jpeg_error;
    if (setjmp(failure.jump)) fail("JPEG encode failed");
    jpeg_create_compress(&info);
    unsigned char *buffer = NULL;
    unsigned long size = 0;
    jpeg_mem_dest(&info, &buffer, &size);
    info.image_width = (JDIMENSION)image.width;
    info.image_height = (JDIMENSION)image.height;
    info.input_components = 4;
    info.in_color_space = JCS_EXT_RGBA;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality, TRUE);
    jpeg_start_compress(&info, TRUE);
    while (info.next_scanline < info.image_height) {
        JSAMPROW row = image.rgba + (size_t)info.next_scanline * (size_t)image.width * 4;
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    free(buffer);
    return size;
}

static size_t encode_webp(struct pixels image, int quality, int keep_alpha) {
    uint8_t *output = NULL;
    size_t size = keep_alpha
        ? WebPEncodeRGBA(image.rgba, image.width, image.height, image.width * 4, (float)quality, &output)
        : 0;
    if (!keep_alpha) {
        /* Opaque input goes in as RGB, as servers hand opaque pixels to libwebp. */
        unsigned char *rgb = malloc((size_t)image.width * image.height * 3);
        for (size_t i = 0; i < (size_t)image.width * image.height; i++) memcpy(rgb + i * 3, image.rgba + i * 4, 3);
        size = WebPEncodeRGB(rgb, image.width, image.height, image.width * 3, (float)quality, &output);
        free(rgb);
    }
    if (size == 0) fail("WebP encode failed");
    WebPFree(output);
    return size;
}

int main(int argc, char **argv) {
    if (argc != 6) fail("usage: library-floor SOURCE jpeg|webp FIT QUALITY SECONDS");
    FILE *file = fopen(argv[1], "rb");
    if (!file) fail("cannot open the source");
    fseek(file, 0, SEEK_END);
    size_t size = (size_t)ftell(file);
    fseek(file, 0, SEEK_SET);
    unsigned char *bytes = malloc(size);
    if (fread(bytes, 1, size, file) != size) fail("cannot read the source");
    fclose(file);
    int to_webp = strcmp(argv[2], "webp") == 0, fit = atoi(argv[3]), quality = atoi(argv[4]);
    double seconds = atof(argv[5]);
    int is_png = size > 8 && memcmp(bytes, "\x89PNG", 4) == 0;
    if (!is_png && !(size > 2 && bytes[0] == 0xFF && bytes[1] == 0xD8)) fail("only JPEG and PNG sources");

    long requests = 0;
    double start = cpu_seconds(), now = start;
    while (now - start < seconds || requests < 3) {
        int has_alpha = 0;
        struct pixels decoded = is_png ? decode_png(bytes, size, &has_alpha) : decode_jpeg(bytes, size, fit);
        int width, height;
        /* Fitted from the decoded size: a scaled JPEG decode keeps the aspect ratio to within a pixel. */
        fitted(decoded.width, decoded.height, fit, &width, &height);
        struct pixels output = sample(decoded, width, height, has_alpha && !to_webp);
        if (to_webp) encode_webp(output, quality, has_alpha); else encode_jpeg(output, quality);
        free(decoded.rgba);
        free(output.rgba);
        requests++;
        now = cpu_seconds();
    }
    printf("%.1f %ld\n", (now - start) / (double)requests * 1e6, requests);
    free(bytes);
    return 0;
}
