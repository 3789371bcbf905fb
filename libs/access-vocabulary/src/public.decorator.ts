import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'identity:public';

/** Marks a route that needs no bearer token (health, metrics, OAuth metadata, invitation accept). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);
