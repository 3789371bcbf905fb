import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import type { Principal } from './principal.js';
import { TokensService } from './tokens.service.js';

@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly tokens: TokensService) {
    super();
  }

  validate(secret: string): Promise<Principal> {
    return this.tokens.authenticate(secret);
  }
}
