/* compose.comp: the compose pass on the GPU without a HUD layer (the still-pixel rule):
 * compose.glsl says what it reads, writes and computes. Grid ceil(W / 16) x ceil(H / 16). */
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compose.glsl"
