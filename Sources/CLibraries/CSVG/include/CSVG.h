#ifndef CSVG_H
#define CSVG_H

#include <stddef.h>
#include <stdint.h>

/// An SVG document parsed by librsvg, ready to render at any size.
typedef struct csvg_document csvg_document;

/// Parses `data` (no external resources are loaded: there is no base file). NULL on failure, with
/// librsvg's reason in `message`.
csvg_document *csvg_open(const uint8_t *data, size_t length, char message[200]);

/// The document's size in pixels at 96 DPI: its width and height attributes, else its viewBox's size,
/// else 0 (the caller picks one).
void csvg_size(csvg_document *document, double *width, double *height);

/// Renders the whole document fitted into `width` x `height` onto transparent pixels, as straight (not
/// premultiplied) RGBA8 rows of `stride` bytes. 0 on success, -1 with a reason in `message`.
int csvg_render(csvg_document *document, int width, int height, uint8_t *rgba, size_t stride, char message[200]);

/// Frees the document.
void csvg_close(csvg_document *document);

#endif
