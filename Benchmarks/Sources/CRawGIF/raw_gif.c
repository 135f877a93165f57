// The baseline for coder-bench's GIF rows: giflib plus a straightforward compositor in C.
#include "raw_gif.h"
#include <gif_lib.h>
#include <stdlib.h>
#include <string.h>

typedef struct { const uint8_t *data; size_t size, offset; } cursor;

static int read_memory(GifFileType *gif, GifByteType *into, int length) {
    cursor *c = gif->UserData;
    size_t n = (size_t)length < c->size - c->offset ? (size_t)length : c->size - c->offset;
    memcpy(into, c->data + c->offset, n);
    c->offset += n;
    return (int)n;
}

long raw_gif_decode_compose(const uint8_t *data, size_t size, int keep_frames, uint32_t *checksum) {
    cursor c = { data, size, 0 };
    int error = 0;
    GifFileType *gif = DGifOpen(&c, read_memory, &error);
    if (!gif) return -1;
    if (DGifSlurp(gif) != GIF_OK) { DGifCloseFile(gif, &error); return -1; }
    const int width = gif->SWidth, height = gif->SHeight;
    uint8_t *canvas = calloc((size_t)width * height, 4), *saved = malloc((size_t)width * height * 4);
    uint8_t **kept = keep_frames ? calloc((size_t)gif->ImageCount, sizeof(uint8_t *)) : NULL;
    *checksum = 0;
    for (int n = 0; n < gif->ImageCount; n++) {
        SavedImage *image = &gif->SavedImages[n];
        GifImageDesc *d = &image->ImageDesc;
        GraphicsControlBlock gcb = { 0, false, 0, NO_TRANSPARENT_COLOR };
        DGifSavedExtensionToGCB(gif, n, &gcb);
        ColorMapObject *map = d->ColorMap ? d->ColorMap : gif->SColorMap;
        if (gcb.DisposalMode == DISPOSE_PREVIOUS) memcpy(saved, canvas, (size_t)width * height * 4);
        int x0 = d->Left < 0 ? 0 : d->Left, y0 = d->Top < 0 ? 0 : d->Top;
        int x1 = d->Left + d->Width < width ? d->Left + d->Width : width;
        int y1 = d->Top + d->Height < height ? d->Top + d->Height : height;
        for (int y = y0; y < y1; y++) {
            const GifByteType *row = image->RasterBits + (size_t)(y - d->Top) * d->Width - d->Left;
            uint8_t *out = canvas + ((size_t)y * width) * 4;
            for (int x = x0; x < x1; x++) {
                int index = row[x];
                if (index == gcb.TransparentColor || index >= map->ColorCount) continue;
                GifColorType color = map->Colors[index];
                out[x * 4] = color.Red; out[x * 4 + 1] = color.Green; out[x * 4 + 2] = color.Blue; out[x * 4 + 3] = 255;
            }
        }
        *checksum += canvas[((size_t)(height / 2) * width + width / 2) * 4];
        if (kept) {
            kept[n] = malloc((size_t)width * height * 4);
            memcpy(kept[n], canvas, (size_t)width * height * 4);
        }
        if (gcb.DisposalMode == DISPOSE_BACKGROUND) {
            for (int y = y0; y < y1; y++) memset(canvas + ((size_t)y * width + x0) * 4, 0, (size_t)(x1 - x0) * 4);
        } else if (gcb.DisposalMode == DISPOSE_PREVIOUS) {
            memcpy(canvas, saved, (size_t)width * height * 4);
        }
    }
    long frames = gif->ImageCount;
    if (kept) {
        for (int n = 0; n < gif->ImageCount; n++) free(kept[n]);
        free(kept);
    }
    free(canvas); free(saved);
    DGifCloseFile(gif, &error);
    return frames;
}
