import { Module } from '@nestjs/common';
import { IdentityModule } from '@app/identity';
import { DemoSeeder } from './demo.seeder.js';

@Module({ imports: [IdentityModule], providers: [DemoSeeder], exports: [DemoSeeder] })
export class DemoModule {}
