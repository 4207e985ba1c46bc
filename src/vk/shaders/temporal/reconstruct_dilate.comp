/* reconstruct_dilate.comp: the reconstruct pass with the host's motion vectors
 * (reconstruct_dilate.glsl). Local size 16 x 16. */
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require

layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

#include "reconstruct_dilate.glsl"
