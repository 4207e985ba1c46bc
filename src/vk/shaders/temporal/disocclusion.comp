/* disocclusion.comp: the disocclusion pass without a reactive mask (disocclusion.glsl).
 * Local size 8 x 8; grid ceil(W / 8) x ceil(H / 8). */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require

layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;

#include "disocclusion.glsl"
