/* testcard.h: a generated test frame (see testcard.c). */
#ifndef UPF_TESTCARD_H
#define UPF_TESTCARD_H

/* Renders the test card into `rgba` (w*h*4 floats, linear light). */
void testcard_render(float *rgba, int w, int h);

#endif
