#include "CSVG.h"
#include <cairo/cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// librsvg's and GLib's declarations, written out: their headers need include paths (glib's is under an
// architecture directory) that a SwiftPM target cannot name portably without pkg-config's flags, which
// it refuses. These are the stable C API of librsvg 2.52 and later (Debian 12 has 2.54).
typedef struct _RsvgHandle RsvgHandle;
typedef struct { uint32_t domain; int code; char *message; } csvg_gerror;
typedef struct { double x, y, width, height; } csvg_rectangle;
typedef struct { double length; int unit; } csvg_length;
enum { CSVG_UNIT_PX = 1 };

extern RsvgHandle *rsvg_handle_new_from_data(const uint8_t *data, size_t length, csvg_gerror **error);
extern int rsvg_handle_get_intrinsic_size_in_pixels(RsvgHandle *handle, double *width, double *height);
extern void rsvg_handle_get_intrinsic_dimensions(RsvgHandle *handle, int *has_width, csvg_length *width,
                                                 int *has_height, csvg_length *height, int *has_viewbox,
                                                 csvg_rectangle *viewbox);
extern int rsvg_handle_render_document(RsvgHandle *handle, cairo_t *cr, const csvg_rectangle *viewport,
                                       csvg_gerror **error);
extern void rsvg_handle_set_dpi(RsvgHandle *handle, double dpi);
extern void g_object_unref(void *object);
extern void g_error_free(csvg_gerror *error);

struct csvg_document {
    RsvgHandle *handle;
};

static void take_error(csvg_gerror *error, const char *fallback, char message[200]) {
    snprintf(message, 200, "%s", error && error->message ? error->message : fallback);
    if (error) g_error_free(error);
}

csvg_document *csvg_open(const uint8_t *data, size_t length, char message[200]) {
    message[0] = 0;
    csvg_gerror *error = NULL;
    RsvgHandle *handle = rsvg_handle_new_from_data(data, length, &error);
    if (!handle) {
        take_error(error, "not an SVG document", message);
        return NULL;
    }
    csvg_document *document = malloc(sizeof(csvg_document));
    if (!document) {
        g_object_unref(handle);
        snprintf(message, 200, "out of memory");
        return NULL;
    }
    // CSS's 96 pixels to the inch, as browsers size `1in`.
    rsvg_handle_set_dpi(handle, 96);
    document->handle = handle;
    return document;
}

void csvg_size(csvg_document *document, double *width, double *height) {
    *width = 0;
    *height = 0;
    if (rsvg_handle_get_intrinsic_size_in_pixels(document->handle, width, height)) return;
    // Percentages (or no size): the viewBox's size, as browsers give such an image.
    int has_width = 0, has_height = 0, has_viewbox = 0;
    csvg_length w = {0, 0}, h = {0, 0};
    csvg_rectangle viewbox = {0, 0, 0, 0};
    rsvg_handle_get_intrinsic_dimensions(document->handle, &has_width, &w, &has_height, &h, &has_viewbox, &viewbox);
    if (has_viewbox) {
        *width = viewbox.width;
        *height = viewbox.height;
    }
}

int csvg_render(csvg_document *document, int width, int height, uint8_t *rgba, size_t stride, char message[200]) {
    message[0] = 0;
    int cairo_stride = cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, width);
    if (cairo_stride < 0 || (size_t)cairo_stride > stride) {
        snprintf(message, 200, "cannot render %dx%d", width, height);
        return -1;
    }
    // Cairo draws premultiplied native-endian ARGB; the output rows are converted in place.
    memset(rgba, 0, stride * (size_t)height);
    cairo_surface_t *surface = cairo_image_surface_create_for_data(rgba, CAIRO_FORMAT_ARGB32, width, height, (int)stride);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        snprintf(message, 200, "cairo: %s", cairo_status_to_string(cairo_surface_status(surface)));
        cairo_surface_destroy(surface);
        return -1;
    }
    cairo_t *cr = cairo_create(surface);
    csvg_rectangle viewport = {0, 0, width, height};
    csvg_gerror *error = NULL;
    int drawn = rsvg_handle_render_document(document->handle, cr, &viewport, &error);
    cairo_destroy(cr);
    cairo_surface_flush(surface);
    cairo_surface_destroy(surface);
    if (!drawn) {
        take_error(error, "the document cannot be drawn", message);
        return -1;
    }
    for (int y = 0; y < height; y++) {
        uint32_t *row = (uint32_t *)(rgba + (size_t)y * stride);
        uint8_t *out = rgba + (size_t)y * stride;
        for (int x = 0; x < width; x++) {
            uint32_t pixel = row[x];
            uint32_t a = pixel >> 24, r = (pixel >> 16) & 0xFF, g = (pixel >> 8) & 0xFF, b = pixel & 0xFF;
            if (a != 0 && a != 255) {
                r = (r * 255 + a / 2) / a;
                g = (g * 255 + a / 2) / a;
                b = (b * 255 + a / 2) / a;
            }
            out[4 * x] = (uint8_t)r;
            out[4 * x + 1] = (uint8_t)g;
            out[4 * x + 2] = (uint8_t)b;
            out[4 * x + 3] = (uint8_t)a;
        }
    }
    return 0;
}

void csvg_close(csvg_document *document) {
    if (!document) return;
    g_object_unref(document->handle);
    free(document);
}
